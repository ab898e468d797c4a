// A run that `npm test` kills must still be running when the kill comes, on any machine. A kill
// timed from a checkpoint of a bounded job lands after the job's end when that checkpoint
// completes late (on a loaded machine a CLI run spends seconds opening, and its first checkpoint
// can complete just before its input ends): the run has then exited 0, or has taken its end's
// checkpoint, and the kill tests nothing of a restore mid-run (too few kills). So each run to
// be killed gets one more source beside the job's own: a generator that makes no record and
// never ends. The run after the last kill gets it with `count: 0`: its restored split
// is past the end, so it ends at once, and the job ends when its own sources have.
//
// It comes first in the job's list of operators. The executors run subtasks in the reverse of
// that order (downstream first), and a rate-limited generator waits for its rate in place: put
// after another source, it would take every turn of the thread it shares with that source's
// subtasks, which then never read (and no checkpoint completes).
import type { JobDocument } from '../cliHarness.js';

export const KEEP_ALIVE = 'keep-alive';

/**
 * `job` with the keep-alive source feeding the operators `into` (those that must not end before
 * it): never ending when `ends` is false, ending at once when true. It ticks slowly
 * (`ratePerSec`) and emits nothing.
 */
export function withKeepAlive(job: JobDocument, into: readonly string[], ends: boolean): JobDocument {
  return {
    ...job,
    operators: [
      {
        id: KEEP_ALIVE,
        kind: 'source.generator',
        parallelism: 1,
        params: {
          code: 'function generate(i) {\n  return null;\n}',
          ratePerSec: 20,
          ...(ends ? { count: 0 } : {}),
        },
      },
      ...job.operators,
    ],
    edges: [
      ...job.edges,
      ...into.map((to) => ({ id: `${KEEP_ALIVE}-${to}`, from: KEEP_ALIVE, to, partition: 'rebalance' })),
    ],
  };
}
