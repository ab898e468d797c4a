import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES } from './problemCodes.js';

describe('documentation', () => {
  it('docs/job-file.md describes every problem code', () => {
    const docs = readFileSync(new URL('../../../docs/job-file.md', import.meta.url), 'utf8');
    for (const code of PROBLEM_CODES) expect(docs, code).toContain(`\`${code}\``);
  });
});
