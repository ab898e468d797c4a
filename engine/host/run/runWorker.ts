// The host's run thread: the run service (runService.ts) with every run and debug session,
// off the thread that serves the designer and handles signals, so that a user function that
// never returns freezes neither; runThread.ts stops such a run by terminating this thread.
import { parentPort, workerData } from 'node:worker_threads';
import { appDataRunDirs } from '../../deploy/runDirs.js';
import type { RunMethods } from '../../protocol/runProtocol.js';
import { CallMarker } from '../../runtime/callMarker.js';
import { catchEscapedRejections } from '../../runtime/escapedRejections.js';
import { ensureLockdown } from '../../sandbox/userCode.js';
import type { MethodSpec } from '../hostService.js';
import { createRunService } from './runService.js';
import type { FromRunWorker, RunWorkerData, ToRunWorker } from './runWorkerProtocol.js';

const port = parentPort!;
const data = workerData as RunWorkerData;
const post = (message: FromRunWorker) => port.postMessage(message);

const marker = new CallMarker(data.marker, (update) => post({ type: 'marker', update }));
ensureLockdown();
catchEscapedRejections(marker);
const service = createRunService(
  (event, eventData) => post({ type: 'event', event, data: eventData }),
  data.runsDir === undefined ? undefined : appDataRunDirs(data.runsDir),
  marker,
);

async function answer(id: number, work: () => Promise<unknown>): Promise<void> {
  try {
    post({ type: 'result', id, result: await work() });
  } catch (error) {
    post({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
  }
}

port.on('message', (message: ToRunWorker) => {
  if (message.type === 'close') {
    void answer(message.id, () => service.close());
    return;
  }
  // The table is keyed by method, so this row's params and run belong together.
  const spec = service.methods[message.method] as MethodSpec<keyof RunMethods>;
  void answer(message.id, async () => spec.run(spec.params(message.params as Record<string, unknown>)));
});
