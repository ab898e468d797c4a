// One worker of a run on several threads: it opens its own subtasks (their LevelDB, their user
// code compiled in this thread's SES compartments), links them to the other threads'
// subtasks, runs them with a PartExecutor, and does what the main thread says (checkpoints,
// loops, the end). Failures go to the main thread as one line for the user.
import { parentPort, workerData } from 'node:worker_threads';
import { JobError } from '../graph/jobError.js';
import { planJob } from '../graph/plan.js';
import { placeSubtasks } from '../graph/threadPlacement.js';
import { loadKindModule } from '../operators/kindFactories.js';
import { CallMarker } from '../runtime/callMarker.js';
import { catchEscapedRejections, onEscapedRejection } from '../runtime/escapedRejections.js';
import { PartExecutor } from '../runtime/partExecutor.js';
import type { SinkCommitter } from '../runtime/sink.js';
import type { Subtask } from '../runtime/subtask.js';
import { ThreadLink } from '../runtime/threadLink.js';
import { ensureLockdown, UserCodeError } from '../sandbox/userCode.js';
import { assemblePart } from './jobAssembly.js';
import type { FromPartWorker, PartRequest, PartWorkerData, ToPartWorker } from './partWorkerProtocol.js';
import { PreviewBatches } from './previewBatches.js';
import { type SubtaskRow, subtaskRow } from './runMetrics.js';
import { OPENING_REPORT_EVERY } from './runOptions.js';

/** How often the main thread gets this thread's figures. */
const METRICS_EVERY_MS = 200;

const port = parentPort!;
const data = workerData as PartWorkerData;
const post = (message: FromPartWorker) => port.postMessage(message);

function messageOf(error: unknown): string {
  if (error instanceof JobError || error instanceof UserCodeError) return error.message;
  return `internal error: ${(error as Error)?.stack ?? String(error)}`;
}

const marker = new CallMarker(data.marker, (update) => post({ type: 'marker', update }));
ensureLockdown();
catchEscapedRejections(marker);

let executor: PartExecutor | undefined;
let subtasks: readonly Subtask[] = [];
const committers = new Map<string, SinkCommitter>();
let failure: string | undefined;
const early: ToPartWorker[] = [];
let started: () => void;
const start = new Promise<void>((resolve) => {
  started = resolve;
});
let aborted = false;
/** A preview's sinks' records on their way to the main thread. */
const preview =
  data.preview === true ? new PreviewBatches((batch) => post({ type: 'preview', ...batch })) : undefined;

function fail(message: string): void {
  failure ??= message;
  executor?.halt();
}
onEscapedRejection((error) => fail(error.message));

function handle(message: ToPartWorker): void {
  const running = executor;
  if (running === undefined && message.type !== 'abort') {
    early.push(message);
    return;
  }
  switch (message.type) {
    case 'start':
      started();
      return;
    case 'trigger':
      running!.trigger(message.checkpointId);
      return;
    case 'complete':
      running!.complete(message.checkpointId);
      return;
    case 'command':
      running!.command(message.command);
      return;
    case 'probe':
      post({ type: 'probed', round: message.round, status: running!.status() });
      return;
    case 'requestStop':
      running!.requestStop();
      return;
    case 'pause': {
      const round = message.round;
      void running!.pause().then(() => post({ type: 'paused', round, subtasks: rows() }));
      return;
    }
    case 'resume':
      running!.resume();
      return;
    case 'commit':
      running!.command('end');
      return;
    case 'call':
      void answer(message.call, message.request);
      return;
    case 'abort':
      aborted = true;
      executor?.halt();
      started();
      return;
  }
}
port.on('message', handle);

/** A call from the main thread: a sink's committer, or the state browser, of this thread. */
async function answer(call: number, request: PartRequest): Promise<void> {
  try {
    post({ type: 'answer', call, result: await answerOf(request) });
  } catch (error) {
    post({ type: 'answer', call, failed: (error as Error)?.message ?? String(error) });
  }
}

async function answerOf(request: PartRequest): Promise<unknown> {
  switch (request.method) {
    case 'prepare':
      return (
        (await committers.get(request.operatorId)!.prepare(request.checkpointId, request.committables)) ??
        undefined
      );
    case 'commit':
      await committers.get(request.operatorId)!.commit(request.commit);
      return undefined;
    case 'browse': {
      const found = subtasks.find(
        (s) => s.operator.id === request.operatorId && s.subtask === request.subtask,
      );
      // What its logic holds on the heap (a window's accumulators) goes into the store first.
      found?.logic.writeHeldState?.();
      const store = found?.store;
      if (store === undefined) {
        throw new Error(
          `internal: operator "${request.operatorId}" subtask ${request.subtask} has no state on thread ${data.thread}`,
        );
      }
      // Afresh each time, so that it sees every write so far.
      const browser = await store.browse();
      const read = request.read;
      return read.method === 'values'
        ? browser.values(read.keys)
        : browser[read.method](read.range, read.limit);
    }
  }
}

async function loadKinds(specifiers: readonly string[]): Promise<void> {
  for (const specifier of specifiers) {
    try {
      await loadKindModule(specifier);
    } catch (error) {
      throw new JobError(`cannot load the kind module ${specifier}: ${(error as Error)?.message ?? error}`);
    }
  }
}

async function open(): Promise<PartExecutor> {
  await loadKinds(data.kindModules ?? []);
  const plan = planJob(data.job);
  const placement = placeSubtasks(plan, data.threads);
  const links = new Map<number, ThreadLink>();
  const wake = () => executor?.wakeUp();
  data.links.forEach((linkPort, thread) => {
    if (linkPort !== undefined) links.set(thread, new ThreadLink(linkPort, wake));
  });
  let opened = 0;
  const part = await assemblePart(
    data.job,
    {
      jobDir: data.jobDir,
      ...(data.confined === undefined ? {} : { confined: data.confined }),
      stateDir: data.stateDir,
      ...(data.checkpointDir === undefined ? {} : { checkpointDir: data.checkpointDir }),
      ...(data.restore === undefined ? {} : { restore: data.restore }),
      ...(preview === undefined ? {} : { previewSinks: preview.receive }),
      callMarker: marker,
      onWait: (wait) => post({ type: 'wait', wait }),
      onSubtaskOpened: () => {
        if (++opened % OPENING_REPORT_EVERY === 0) post({ type: 'opening', opened });
      },
    },
    {
      placement,
      thread: data.thread,
      link: (thread) => links.get(thread)!,
      firstCheckpointId: data.firstCheckpointId,
      acker: {
        acknowledge: (ordinal, checkpointId, ack) => {
          ack.then(
            (value) => post({ type: 'ack', ordinal, checkpointId, ack: value }),
            (error: unknown) =>
              post({
                type: 'ackFailed',
                ordinal,
                checkpointId,
                reason: (error as Error)?.message ?? String(error),
              }),
          );
        },
      },
    },
  );
  subtasks = part.subtasks;
  for (const sink of part.sinks) committers.set(sink.operatorId, sink.committer);
  return new PartExecutor(subtasks, [...links.values()], {
    idle: (status) => post({ type: 'idle', status }),
    finished: () => post({ type: 'finished' }),
  });
}

/** This thread's subtasks' rows, their time put down up to now (the slice under way, or the wait). */
function rows(): SubtaskRow[] {
  executor?.load?.settle(performance.now());
  return subtasks.map(subtaskRow);
}

const sample = () => post({ type: 'metrics', subtasks: rows() });

/** Commits (the run ended) or aborts (a stop at a checkpoint, a failure), then closes. */
async function close(commit: boolean): Promise<void> {
  if (commit) {
    for (const subtask of subtasks) subtask.takeFinalEndsOfStream();
    for (const subtask of subtasks) await subtask.store?.flush();
    for (const subtask of subtasks) await subtask.logic.commit();
  } else {
    await Promise.allSettled(subtasks.map((s) => s.abort()));
  }
  await Promise.allSettled(subtasks.map((s) => s.discardSnapshots()));
  await Promise.allSettled(subtasks.map((s) => s.store?.close()));
}

async function main(): Promise<void> {
  try {
    executor = await open();
  } catch (error) {
    post({ type: 'failed', message: messageOf(error) });
    return;
  }
  const running = executor;
  for (const message of early.splice(0)) handle(message);
  // The live panels have a row for every subtask from the start.
  sample();
  post({ type: 'opened' });
  await start;
  const sampler = setInterval(sample, METRICS_EVERY_MS);
  sampler.unref();
  try {
    if (!aborted) await running.run();
    if (failure !== undefined) throw new JobError(failure);
    if (!running.halted && !aborted) {
      await close(true);
      preview?.flush();
      post({ type: 'closed', subtasks: rows() });
      return;
    }
  } catch (error) {
    failure ??= messageOf(error);
    // The main thread stops the other threads at once; this one cleans up meanwhile.
    post({ type: 'failed', message: failure });
  } finally {
    clearInterval(sampler);
  }
  await close(false).catch(() => {});
  preview?.flush();
  post({ type: 'closed', subtasks: rows() });
}

await main();
for (const link of data.links) link?.close();
port.off('message', handle);
