// The run service as the host's thread sees it: every run method goes to the run thread
// (runWorker.ts), every run event comes back, and this thread stays free to serve the designer
// and handle signals whatever user code does. What it adds is what only it can do:
// - a stop that a call into user code does not let through (a loop that never ends, a promise
//   that never settles): when the same call is still in progress STUCK_AFTER_MS after the stop,
//   the thread is terminated and the run fails naming the operator and the record;
// - a run whose code has been in one call for a while says so in its status, visibly;
// - a thread that dies (out of memory, a native crash) fails its run, and the next call starts
//   a new thread.
// The last completed checkpoint stays restorable: a checkpoint is complete only once its
// metadata file is renamed into place.
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { releaseRunLocks } from '../../deploy/runLock.js';
import { runLockTargets } from '../../deploy/runLockTargets.js';
import {
  overTimeLimitMessage,
  STUCK_AFTER_MS,
  stuckStopMessage,
  threadDiedMessage,
} from '../../deploy/stuckCall.js';
import { workerScript } from '../../deploy/workerScript.js';
import type { Job } from '../../graph/schema.js';
import { validateJobText } from '../../graph/validation/validateJob.js';
import {
  RUN_METHOD_NAMES,
  type RunInfo,
  type RunMethods,
  type RunStartParams,
} from '../../protocol/runProtocol.js';
import { CallMarkerView, createMarkerBuffer } from '../../runtime/callMarker.js';
import type { MethodSpec } from '../hostService.js';
import { isEnded } from './drivenRun.js';
import { LongCallStatus } from './longCallStatus.js';
import type { RunEventEmitter, RunMethodTable, RunService } from './runService.js';
import type { FromRunWorker, RunWorkerData, ToRunWorker } from './runWorkerProtocol.js';

/** How often the marker is looked at: how well a call's length is known. */
const WATCH_EVERY_MS = 100;
/** How long closing waits for the run thread to stop its run cleanly. */
const CLOSE_WAIT_MS = 5000;

/** A call the run thread will never answer: it was ended (a forced stop) or it died. */
class ThreadEnded extends Error {}

interface Pending {
  readonly method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One run thread, from its start to its end (asked for, or not). */
class RunThread {
  readonly worker: Worker;
  readonly view: CallMarkerView;
  readonly pending = new Map<number, Pending>();
  ended = false;

  constructor(data: Omit<RunWorkerData, 'marker'>) {
    const marker = createMarkerBuffer();
    this.view = new CallMarkerView(marker);
    const workerData: RunWorkerData = { ...data, marker };
    this.worker = new Worker(workerScript(import.meta.url, './runWorker.js'), { workerData });
  }

  /** The last run.start's params: what its run locked (runLockTargets) follows from them. */
  started: RunStartParams | undefined;
  /** That run's job. */
  job: Job | undefined;

  /**
   * Every call still waiting fails with `message`; nothing more will come from this thread. The
   * locks its run took are released here: the thread cannot, and this process, which holds them,
   * is alive (see runLock.ts).
   */
  async end(message: string, run: RunInfo | undefined): Promise<void> {
    this.ended = true;
    for (const { method, reject } of this.pending.values()) reject(new ThreadEnded(`${method}: ${message}`));
    this.pending.clear();
    const threadId = this.worker.threadId;
    await this.worker.terminate();
    const job = this.job;
    if (job === undefined || run === undefined || this.started === undefined) return;
    const places = {
      jobDir: dirname(this.started.path),
      stateDir: run.stateDir,
      checkpointDir: run.checkpointDir,
      previewSinks: this.started.previewSinks,
    };
    releaseRunLocks(runLockTargets(job, places), { threadId });
  }
}

export function createThreadedRunService(emit: RunEventEmitter, runsDir?: string): RunService {
  let thread: RunThread | undefined;
  let nextId = 1;
  /** The last status of the run the thread has (or had): what a forced end reports against. */
  let lastInfo: RunInfo | undefined;
  let stopAskedAt: number | undefined;
  const longCall = new LongCallStatus((message) => {
    if (lastInfo !== undefined)
      emit('run.status', message === undefined ? lastInfo : { ...lastInfo, message });
  });

  function runIsActive(): boolean {
    return lastInfo !== undefined && !isEnded(lastInfo.status);
  }

  /** The run ends here, not in its thread: its last status says how. */
  function failRun(message: string): RunInfo | undefined {
    if (lastInfo === undefined || !runIsActive()) return undefined;
    lastInfo = { ...lastInfo, status: 'failed', message };
    emit('run.status', lastInfo);
    return lastInfo;
  }

  function onMessage(owner: RunThread, message: FromRunWorker): void {
    switch (message.type) {
      case 'marker':
        owner.view.update(message.update);
        return;
      case 'event':
        if (message.event === 'run.status') {
          lastInfo = message.data as RunInfo;
          longCall.replaced();
          if (!runIsActive()) stopAskedAt = undefined;
        }
        emit(message.event, message.data as never);
        return;
      case 'result':
      case 'error': {
        const call = owner.pending.get(message.id);
        owner.pending.delete(message.id);
        if (message.type === 'result') call?.resolve(message.result);
        else call?.reject(new Error(message.message));
        return;
      }
    }
  }

  function start(): RunThread {
    const started = new RunThread(runsDir === undefined ? {} : { runsDir });
    started.worker.on('message', (message: FromRunWorker) => onMessage(started, message));
    const died = (why: string) => {
      if (!started.ended) void endThread(started, threadDiedMessage(why, started.view.current()));
    };
    started.worker.on('error', (error) =>
      died(
        (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'out of memory'
          : error.message,
      ),
    );
    started.worker.on('exit', (code) => died(`it ended with exit code ${code}`));
    return started;
  }

  function call(method: keyof RunMethods, params: unknown): Promise<unknown> {
    thread ??= start();
    const owner = thread;
    const id = nextId++;
    const answer = new Promise((resolve, reject) => {
      owner.pending.set(id, { method, resolve, reject });
      const message: ToRunWorker = { type: 'call', id, method, params };
      owner.worker.postMessage(message);
    });
    if (method === 'run.start') {
      answer.then(
        () => {
          owner.started = params as RunStartParams;
          owner.job = validateJobText(owner.started.text).job;
        },
        () => {},
      );
    }
    return answer;
  }

  /**
   * The thread goes (a forced stop, or it died) and its run fails with `message`; the run.stop
   * calls waiting are answered with that status once the run's locks are released, so a run
   * started next finds its folders free.
   */
  async function endThread(owner: RunThread, message: string): Promise<void> {
    if (thread === owner) thread = undefined;
    stopAskedAt = undefined;
    const info = failRun(message);
    await owner.end(message, info);
    for (const waiter of stopWaiters) {
      if (info === undefined) waiter.reject(new Error(`run.stop: ${message}`));
      else waiter.resolve(info);
    }
  }

  /** The run.stop calls waiting, for endThread to answer. */
  const stopWaiters = new Set<{ resolve(info: RunInfo): void; reject(error: Error): void }>();

  const watch = setInterval(() => {
    const owner = thread;
    if (owner === undefined || owner.ended) return;
    const now = performance.now();
    const stuckFor = owner.view.stuckFor(now);
    const current = owner.view.current();
    if (current === undefined || !runIsActive()) {
      longCall.look(undefined, 0);
      return;
    }
    const limit = owner.job?.settings.callTimeoutMs;
    if (limit !== undefined && stuckFor >= limit) {
      void endThread(owner, overTimeLimitMessage(current, stuckFor, limit));
      return;
    }
    // As the CLI's (threadedJobRun.ts): a call that began before the stop or after it.
    if (stopAskedAt !== undefined && now - stopAskedAt >= STUCK_AFTER_MS && stuckFor >= STUCK_AFTER_MS) {
      void endThread(owner, stuckStopMessage(current, stuckFor));
      return;
    }
    longCall.look(current, stuckFor);
  }, WATCH_EVERY_MS);
  watch.unref();

  const methods = Object.fromEntries(
    (Object.keys(RUN_METHOD_NAMES) as (keyof RunMethods)[]).map((method) => {
      const spec: MethodSpec<typeof method> = {
        // The run thread's own table checks the params: this side only forwards them.
        params: (raw) => raw as never,
        run: async (params) => {
          // A stop asked for belongs to the run it stopped.
          if (method === 'run.start') stopAskedAt = undefined;
          if (method !== 'run.stop') return (await call(method, params)) as never;
          stopAskedAt ??= performance.now();
          let waiter!: { resolve(info: RunInfo): void; reject(error: Error): void };
          const ended = new Promise<RunInfo>((resolve, reject) => {
            waiter = { resolve, reject };
          });
          stopWaiters.add(waiter);
          try {
            // A thread that ends fails the call; endThread then answers with the run's status.
            return (await call(method, params).catch((error: unknown) => {
              if (error instanceof ThreadEnded) return ended;
              stopAskedAt = undefined;
              throw error;
            })) as never;
          } finally {
            stopWaiters.delete(waiter);
          }
        },
      };
      return [method, spec];
    }),
  ) as unknown as RunMethodTable;

  return {
    methods,
    async close() {
      clearInterval(watch);
      const owner = thread;
      thread = undefined;
      if (owner === undefined || owner.ended) return;
      const id = nextId++;
      const closed = new Promise<unknown>((resolve, reject) => {
        owner.pending.set(id, { method: 'close', resolve, reject });
        owner.worker.postMessage({ type: 'close', id } satisfies ToRunWorker);
      });
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref());
      await Promise.race([closed.catch(() => {}), timeout]);
      owner.ended = true;
      await owner.worker.terminate();
    },
  };
}
