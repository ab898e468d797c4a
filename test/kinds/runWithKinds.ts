// A run in a process of its own, with the test kinds loaded: what the kill -9 tests start and
// kill. Usage (compiled, see compileKinds.ts):
//   node dist/test/kinds/runWithKinds.js JOB.json --state-dir DIR --checkpoint-dir DIR [--restore latest]
// Says on stderr which checkpoint it restores (as `pipewright run` does); exit 0 done, 1 failed.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { CheckpointMetadata } from '../../engine/checkpoint/checkpointMetadata.js';
import { findCheckpoint } from '../../engine/checkpoint/findCheckpoint.js';
import { JobRun } from '../../engine/deploy/jobRun.js';
import { validateJobText } from '../../engine/graph/validation/validateJob.js';
import { loadKindModule } from '../../engine/operators/kindFactories.js';

/** The kind modules of this folder, beside this file (as compiled). */
const KIND_MODULES = ['./sourceCounter/kind.js', './sinkCollect/kind.js'].map((relative) =>
  fileURLToPath(new URL(relative, import.meta.url)),
);

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'state-dir': { type: 'string' },
      'checkpoint-dir': { type: 'string' },
      restore: { type: 'string' },
    },
  });
  const jobPath = positionals[0];
  const stateDir = values['state-dir'];
  const checkpointDir = values['checkpoint-dir'];
  if (jobPath === undefined || stateDir === undefined || checkpointDir === undefined) {
    console.error('usage: runWithKinds JOB.json --state-dir DIR --checkpoint-dir DIR [--restore latest]');
    return 1;
  }
  for (const module of KIND_MODULES) await loadKindModule(module);
  const { job, problems } = validateJobText(readFileSync(jobPath, 'utf8'));
  if (job === undefined) {
    for (const problem of problems) console.error(`${jobPath}: ${JSON.stringify(problem)}`);
    return 1;
  }
  let restore: CheckpointMetadata | undefined;
  if (values.restore !== undefined) {
    const wanted = values.restore === 'latest' ? 'latest' : Number(values.restore);
    const found = await findCheckpoint(resolve(checkpointDir), wanted, (text) => console.error(text));
    if (found.error !== undefined) {
      console.error(found.error);
      return 1;
    }
    restore = found.checkpoint;
  }
  const run = await JobRun.open(job, {
    jobDir: dirname(resolve(jobPath)),
    stateDir: resolve(stateDir),
    checkpointDir: resolve(checkpointDir),
    ...(restore === undefined ? {} : { restore }),
  });
  const summary = await run.run();
  console.error(`done: checkpoints ${summary.checkpoints.join(', ') || 'none'}`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error((error as Error)?.message ?? String(error));
    process.exitCode = 1;
  },
);
