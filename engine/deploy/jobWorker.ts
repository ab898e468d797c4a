// The CLI's run thread: opens the job and runs it off the thread that handles signals, so a
// user function that never returns can still be stopped (threadedJobRun.ts terminates this
// thread). Its port is unref'd: when a run waits only on a promise user code never settles,
// nothing keeps this thread alive, it ends, and the starting thread reports that promise.
import { parentPort, workerData } from 'node:worker_threads';
import { JobError } from '../graph/jobError.js';
import { loadKindModule } from '../operators/kindFactories.js';
import { CallMarker } from '../runtime/callMarker.js';
import { catchEscapedRejections } from '../runtime/escapedRejections.js';
import { ensureLockdown } from '../sandbox/userCode.js';
import { JobRun } from './jobRun.js';
import { type FromJobWorker, type JobWorkerData, type ToJobWorker, WARM } from './jobWorkerProtocol.js';
import { OPENING_REPORT_EVERY } from './runOptions.js';

/** How often the progress display and the metrics file get a fresh sample. */
const METRICS_EVERY_MS = 200;

const port = parentPort!;
const post = (message: FromJobWorker) => port.postMessage(message);

function messageOf(error: unknown): string {
  return error instanceof JobError
    ? error.message
    : `internal error: ${(error as Error)?.stack ?? String(error)}`;
}

ensureLockdown();
/** A thread started warm (warmJobWorker.ts) is loaded and locked down: now it waits for its job. */
const data =
  workerData === WARM
    ? await new Promise<JobWorkerData>((resolve) =>
        port.once('message', (message: Extract<ToJobWorker, { type: 'start' }>) => resolve(message.data)),
      )
    : (workerData as JobWorkerData);
const marker = new CallMarker(data.marker, (update) => post({ type: 'marker', update }));
catchEscapedRejections(marker);

let jobRun: JobRun | undefined;
let stopAsked = false;
port.on('message', (message: ToJobWorker) => {
  if (message.type === 'stop') {
    stopAsked = true;
    jobRun?.stop();
  }
});
port.unref();

async function run(running: JobRun): Promise<void> {
  const sampler = setInterval(() => post({ type: 'metrics', metrics: running.metrics() }), METRICS_EVERY_MS);
  sampler.unref();
  try {
    post({ type: 'done', summary: await running.run() });
  } catch (error) {
    post({ type: 'failed', message: messageOf(error) });
  } finally {
    clearInterval(sampler);
  }
}

/** The kinds the starting thread named: this thread's registry knows only the built-ins. */
async function loadKinds(specifiers: readonly string[]): Promise<void> {
  for (const specifier of specifiers) {
    try {
      await loadKindModule(specifier);
    } catch (error) {
      throw new JobError(`cannot load the kind module ${specifier}: ${(error as Error)?.message ?? error}`);
    }
  }
}

try {
  await loadKinds(data.kindModules ?? []);
  let opened = 0;
  jobRun = await JobRun.open(data.job, {
    jobDir: data.jobDir,
    ...(data.confined === undefined ? {} : { confined: data.confined }),
    stateDir: data.stateDir,
    checkpointDir: data.checkpointDir,
    ...(data.restore === undefined ? {} : { restore: data.restore }),
    onCheckpoint: (event) => post({ type: 'checkpoint', event }),
    onWait: (wait) => post({ type: 'wait', wait }),
    onSubtaskOpened: () => {
      if (++opened % OPENING_REPORT_EVERY === 0) post({ type: 'opening', opened });
    },
    callMarker: marker,
  });
  post({ type: 'opened' });
} catch (error) {
  post({ type: 'failed', message: messageOf(error) });
}
if (jobRun !== undefined) {
  if (stopAsked) jobRun.stop();
  await run(jobRun);
}
