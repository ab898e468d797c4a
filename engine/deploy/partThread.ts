// One worker of a run on several threads, as the main thread holds it: the worker, the view of
// its call marker, which subtasks it runs, where it is in the run's life, its latest figures,
// and calls to it that wait for an answer (a sink's committer, the state browser). When the
// thread is gone, those calls fail: nothing more can answer them.
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { Plan } from '../graph/plan.js';
import type { ThreadPlacement } from '../graph/threadPlacement.js';
import { CallMarkerView, createMarkerBuffer, type MarkedSubtask } from '../runtime/callMarker.js';
import type { FromPartWorker, PartRequest, PartWorkerData, ToPartWorker } from './partWorkerProtocol.js';
import type { SubtaskRow } from './runMetrics.js';
import { workerScript } from './workerScript.js';

/** A link between every two of `threads` threads: thread a's port to thread b is ports[a][b]. */
export function linkPorts(threads: number): (MessagePort | undefined)[][] {
  const ports: (MessagePort | undefined)[][] = [...Array(threads)].map(() =>
    new Array(threads).fill(undefined),
  );
  for (let a = 0; a < threads; a++) {
    for (let b = a + 1; b < threads; b++) {
      const { port1, port2 } = new MessageChannel();
      ports[a]![b] = port1;
      ports[b]![a] = port2;
    }
  }
  return ports;
}

export class PartThread {
  readonly worker: Worker;
  readonly view: CallMarkerView;
  /** The subtasks it runs, as a failure names them. */
  readonly subtasks: readonly MarkedSubtask[];
  opened = false;
  finished = false;
  closed = false;
  rows: readonly SubtaskRow[] = [];
  /** Resolves once the thread has closed its subtasks, or has ended. */
  readonly gone: Promise<void>;
  private markGone!: () => void;
  private readonly calls = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  private nextCall = 0;

  constructor(
    readonly thread: number,
    plan: Plan,
    placement: ThreadPlacement,
    data: Omit<PartWorkerData, 'marker'>,
    listener: {
      readonly heard: (message: FromPartWorker) => void;
      /** The thread ended or failed without closing: why, in words. */
      readonly died: (why: string) => void;
    },
  ) {
    const marker = createMarkerBuffer();
    this.view = new CallMarkerView(marker);
    this.subtasks = plan.operators.flatMap((op) =>
      placement.byOperator
        .get(op.id)!
        .flatMap((t, subtask) =>
          t === thread ? [{ operatorId: op.id, subtask, parallelism: op.parallelism }] : [],
        ),
    );
    this.gone = new Promise<void>((resolve) => {
      this.markGone = resolve;
    });
    this.worker = new Worker(workerScript(import.meta.url, './partWorker.js'), {
      workerData: { ...data, marker } satisfies PartWorkerData,
      transferList: data.links.filter((p): p is MessagePort => p !== undefined),
    });
    this.worker.on('message', (message: FromPartWorker) => {
      if (message.type === 'answer') this.answered(message.call, message.result, message.failed);
      else if (message.type === 'closed') this.ended(true);
      listener.heard(message);
    });
    this.worker.on('error', (error) => {
      listener.died(
        (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'out of memory'
          : error.message,
      );
    });
    this.worker.on('exit', (code) => {
      const closed = this.closed;
      this.ended(closed);
      if (!closed) listener.died(`it ended with exit code ${code}`);
    });
  }

  post(message: ToPartWorker): void {
    if (!this.closed) this.worker.postMessage(message);
  }

  /** Asks the thread and waits for its answer; fails once the thread has closed or ended. */
  call<T>(request: PartRequest): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the run has closed it'));
        return;
      }
      const call = this.nextCall++;
      this.calls.set(call, { resolve: resolve as (result: unknown) => void, reject });
      this.worker.postMessage({ type: 'call', call, request } satisfies ToPartWorker);
    });
  }

  private answered(call: number, result: unknown, failed: string | undefined): void {
    const waiting = this.calls.get(call);
    this.calls.delete(call);
    if (failed !== undefined) waiting?.reject(new Error(failed));
    else waiting?.resolve(result);
  }

  private ended(closed: boolean): void {
    this.closed = closed || this.closed;
    for (const { reject } of this.calls.values()) reject(new Error('the run has closed it'));
    this.calls.clear();
    this.markGone();
  }
}
