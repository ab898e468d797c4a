// The Flink runner's own Java tests (flink/src/test: keys as keyGroups.ts hashes them, the pipe's
// frames, source.jsonl's lines; in the soak tier also its MiniCluster jobs with a stand-in
// worker, a worker's death and restore among them), run by Maven as a part of npm test. The
// build goes to a folder of its own: flink/target holds the jar the CLI's runs use.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs, repoRoot } from './cliHarness.js';
import { SOAK } from './tier.js';

afterAll(removeTempDirs);

function maven(args: readonly string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('mvn', args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-30_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('the Flink runner (Java)', () => {
  it(
    SOAK ? 'passes its tests, MiniCluster jobs included' : 'passes its unit tests',
    async () => {
      const target = await makeTempDir('pipewright-flink-target-');
      const { status, output } = await maven([
        '-q',
        '-B',
        '-f',
        path.join(repoRoot, 'flink', 'pom.xml'),
        'test',
        `-Dflink.target=${target}`,
        ...(SOAK ? [] : ['-De2e.excluded=e2e']),
      ]);
      expect(status, output).toBe(0);
    },
    SOAK ? 900_000 : 300_000,
  );
});
