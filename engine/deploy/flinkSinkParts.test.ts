import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { committedParts, flinkSinkDir, joinSinkParts } from './flinkSinkParts.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flink-parts-'));
  dirs.push(dir);
  return dir;
}

describe('joinSinkParts', () => {
  it('joins the committed parts in subtask, then part order, and leaves out what no checkpoint committed', async () => {
    const dir = folder();
    const out = join(dir, 'out.jsonl');
    const parts = flinkSinkDir(out);
    expect(parts).toBe(join(dir, '.out.jsonl.flink'));
    mkdirSync(parts);
    const uuid = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    writeFileSync(join(parts, `part-${uuid}-1-0`), '{"s":1,"n":0}\n');
    writeFileSync(join(parts, `part-${uuid}-0-10`), '{"s":0,"n":10}\n');
    writeFileSync(join(parts, `part-${uuid}-0-2`), '{"s":0,"n":2}\n');
    writeFileSync(join(parts, `.part-${uuid}-0-11.inprogress.5d41402a`), '{"lost":true}\n');
    expect((await committedParts(parts)).map((p) => p.slice(parts.length + 1))).toEqual([
      `part-${uuid}-0-2`,
      `part-${uuid}-0-10`,
      `part-${uuid}-1-0`,
    ]);
    writeFileSync(out, 'an earlier run\n');
    await joinSinkParts(parts, out);
    expect(readFileSync(out, 'utf8')).toBe('{"s":0,"n":2}\n{"s":0,"n":10}\n{"s":1,"n":0}\n');
    expect(existsSync(parts)).toBe(false);
  });

  it('writes an empty file when nothing was committed', async () => {
    const dir = folder();
    const out = join(dir, 'empty.jsonl');
    await joinSinkParts(flinkSinkDir(out), out);
    expect(readFileSync(out, 'utf8')).toBe('');
  });
});
