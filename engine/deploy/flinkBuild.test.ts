import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flinkSourceStamp } from './flinkBuild.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout's files the runner jar is built from: its pom, its sources, the worker it carries. */
function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'flink-stamp-'));
  dirs.push(root);
  mkdirSync(join(root, 'flink', 'src', 'main', 'java'), { recursive: true });
  mkdirSync(join(root, 'dist', 'flink'), { recursive: true });
  writeFileSync(join(root, 'flink', 'pom.xml'), '<project/>');
  writeFileSync(join(root, 'flink', 'src', 'main', 'java', 'Runner.java'), 'class Runner {}');
  writeFileSync(join(root, 'dist', 'flink', 'flinkWorker.mjs'), 'worker 1');
  return root;
}

describe('flinkSourceStamp', () => {
  it('changes with the sources and with the worker bundle the jar carries', () => {
    const root = checkout();
    const first = flinkSourceStamp(root);
    expect(flinkSourceStamp(root)).toBe(first);
    writeFileSync(join(root, 'dist', 'flink', 'flinkWorker.mjs'), 'worker 2');
    const rebuiltWorker = flinkSourceStamp(root);
    expect(rebuiltWorker).not.toBe(first);
    writeFileSync(join(root, 'flink', 'src', 'main', 'java', 'Runner.java'), 'class Runner { }');
    expect(flinkSourceStamp(root)).not.toBe(rebuiltWorker);
    // The worker's source map is not in the jar: it changes nothing.
    const stamp = flinkSourceStamp(root);
    writeFileSync(join(root, 'dist', 'flink', 'flinkWorker.mjs.map'), '{}');
    expect(flinkSourceStamp(root)).toBe(stamp);
  });
});
