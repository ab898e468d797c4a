// A run thread (jobWorker.ts) started before the job it will run is known. Loading the engine's
// modules is most of a short run's time (an empty job took ~0.45 s, of which ~0.2 s loading on
// this thread and ~0.23 s loading again on the run thread, one after the other): the CLI starts
// this thread first thing, it loads and locks down while this thread loads and validates, and
// ThreadedJobRun hands it the job instead of starting a thread of its own. A command that ends up
// not using it (an invalid job, a run spread over threads) drops it.
import { Worker } from 'node:worker_threads';
import { type JobWorkerData, WARM } from './jobWorkerProtocol.js';
import { workerScript } from './workerScript.js';

interface Warm {
  readonly worker: Worker;
  /** The thread failed or ended before anyone took it: it cannot run a job. */
  gone: boolean;
}

let warm: Warm | undefined;

/** Starts the thread, unless one waits already. It keeps no one waiting: the process may end. */
export function startWarmJobWorker(): void {
  if (warm !== undefined) return;
  const worker = new Worker(workerScript(import.meta.url, './jobWorker.js'), { workerData: WARM });
  const started: Warm = { worker, gone: false };
  // A thread that cannot load fails again, with its message, when a run starts one afresh.
  worker.on('error', () => {
    started.gone = true;
  });
  worker.on('exit', () => {
    started.gone = true;
  });
  worker.unref();
  warm = started;
}

/**
 * The waiting thread, given `data` to run (it then behaves as one started with that workerData),
 * or undefined when there is none to take.
 */
export function takeWarmJobWorker(data: JobWorkerData): Worker | undefined {
  const taken = warm;
  warm = undefined;
  if (taken === undefined) return undefined;
  if (taken.gone) {
    void taken.worker.terminate();
    return undefined;
  }
  taken.worker.removeAllListeners();
  taken.worker.ref();
  taken.worker.postMessage({ type: 'start', data });
  return taken.worker;
}

/**
 * Ends the waiting thread, if any: the command does not need it. Resolves once it has ended (to
 * its exit code; undefined when there was none).
 */
export function dropWarmJobWorker(): Promise<number | undefined> {
  const dropped = warm;
  warm = undefined;
  return dropped === undefined ? Promise.resolve(undefined) : dropped.worker.terminate();
}
