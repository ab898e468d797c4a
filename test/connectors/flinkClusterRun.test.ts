// `pipewright flink --cluster` on the Flink session cluster `npm run services` starts (issue 28):
// the examples without a feedback edge or a transaction, submitted through the REST API, give
// the local engine's output. The cluster's other tests (a user's error, a stop with a savepoint,
// a TaskManager killed mid-run) are in flinkCluster.soak.test.ts.
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs } from '../cliHarness.js';
import { FLINK_TIMEOUT, flinkMatchesLocal } from '../flinkHarness.js';
import { describeWithServer, FLINK_URL } from './servers.js';

afterAll(removeTempDirs);

await describeWithServer('flink', 'pipewright flink --cluster', () => {
  it(
    'runs word-count and bar-state on the cluster to the local engine output',
    async () => {
      const run = await flinkMatchesLocal('word-count', 'out/word-counts.jsonl', 'word', [
        '--cluster',
        FLINK_URL,
      ]);
      expect(run.stdout).toMatch(/^job "word-count" submitted to .* as [0-9a-f]{32} \(Flink 2\.3\.0\)$/m);
      expect(run.stdout).toMatch(/^done: job "word-count" on http:\/\/.*, [\d,]+ records read$/m);
      await flinkMatchesLocal('bar-state', 'out/bar-events-out.jsonl', 'barId', ['--cluster', FLINK_URL]);
    },
    2 * FLINK_TIMEOUT,
  );
});
