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
  it('joins the committed parts in name order, the order they were opened, and leaves out what no checkpoint committed', async () => {
    const dir = folder();
    const out = join(dir, 'out.jsonl');
    const parts = flinkSinkDir(out);
    expect(parts).toBe(join(dir, '.out.jsonl.flink'));
    mkdirSync(parts);
    // part-<ms>-<sequence>-<uuid>-<counter>: after a restart a new uuid, the counter from 0 again.
    const names = [
      'part-1765112400000-000000000-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d-0',
      'part-1765112400100-000000001-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d-1',
      'part-1765112402000-000000000-0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0-0',
    ];
    writeFileSync(join(parts, names[2]!), '{"n":3}\n');
    writeFileSync(join(parts, names[0]!), '{"n":1}\n');
    writeFileSync(join(parts, names[1]!), '{"n":2}\n');
    writeFileSync(join(parts, `.${names[2]}.inprogress.5d41402a`), '{"lost":true}\n');
    expect((await committedParts(parts)).map((p) => p.slice(parts.length + 1))).toEqual(names);
    writeFileSync(out, 'an earlier run\n');
    await joinSinkParts(parts, out);
    expect(readFileSync(out, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(existsSync(parts)).toBe(false);
  });

  it('writes an empty file when nothing was committed', async () => {
    const dir = folder();
    const out = join(dir, 'empty.jsonl');
    await joinSinkParts(flinkSinkDir(out), out);
    expect(readFileSync(out, 'utf8')).toBe('');
  });
});
