// The worker's conversation with the runner (flink/PROTOCOL.md, "The worker pipe"): `open`
// compiles the code and answers ready or error, each `batch` runs its records and answers done
// or error (asking for state it lacks on the way); a source's worker (source.nexmark,
// source.generator) answers `make` with the records asked for; `close` or the end of input ends it.
import type { StateReader, StateText } from './batchState.js';
import type { FramePipe } from './frames.js';
import { GeneratorMaker } from './generatorMaker.js';
import { NexmarkMaker } from './nexmarkMaker.js';
import {
  type BatchMessage,
  type MakeMessage,
  messageType,
  type OpenMessage,
  type ReadRequest,
  type WorkerMessage,
} from './pipeMessages.js';
import { WorkerOperator } from './workerOperator.js';

/**
 * State reads over the pipe. They happen inside user code, which may catch what a read throws:
 * a pipe that ended or an answer of the wrong kind therefore ends the process there and then.
 * The runner keeps two batches out (PROTOCOL.md, "Two batches in flight"): the next batch may
 * come before the answer to a read, and waits in `ahead` for its turn.
 */
function pipeReader(pipe: FramePipe, ahead: unknown[]): StateReader {
  const ask = (request: ReadRequest, answer: string): Record<string, unknown> => {
    pipe.write(request);
    let frame: unknown;
    let type: string;
    do {
      try {
        frame = pipe.read();
      } catch (error) {
        quit(1, `flink worker: ${(error as Error).message}`);
      }
      if (frame === undefined) quit(0);
      type = messageType(frame);
      if (type === 'batch') ahead.push(frame);
    } while (type === 'batch');
    if (type !== answer) quit(1, `flink worker: the runner answered a ${request.what} read with ${type}`);
    return frame as Record<string, unknown>;
  };
  const text = (frame: Record<string, unknown>): StateText => {
    const v = frame.v;
    if (v === null || typeof v === 'string') return v;
    return quit(1, 'flink worker: a value answer holds neither text nor null');
  };
  const array = <T>(value: unknown): readonly T[] =>
    Array.isArray(value) ? value : quit(1, 'flink worker: an answer holds no array');
  return {
    value: (i, name) => text(ask({ t: 'read', i, what: 'value', name }, 'value')),
    mapElement: (i, name, mk) => text(ask({ t: 'read', i, what: 'map', name, mk }, 'value')),
    mapEntries: (i, name) => array(ask({ t: 'read', i, what: 'mapEntries', name }, 'entries').entries),
    list: (i, name) => array(ask({ t: 'read', i, what: 'list', name }, 'list').values),
  };
}

function quit(status: number, message?: string): never {
  if (message !== undefined) process.stderr.write(`${message}\n`);
  process.exit(status);
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A promise user code rejected and nothing handled fails the job, as it does locally
 * (runtime/escapedRejections.ts), named by the operator on its stack. Node says so only between
 * two turns of its event loop, and the worker blocks on the pipe between batches: so after each
 * batch the worker yields one turn before it answers, and the batch it was made in (or, made
 * later by a timer of the code's own, the next) is answered with the failure.
 */
function watchEscapedRejections(
  operator: () => { escapedFailure(reason: unknown): string } | undefined,
): () => string | undefined {
  let escaped: string | undefined;
  process.on('unhandledRejection', (reason) => {
    const open = operator();
    escaped ??=
      open === undefined
        ? `flink worker: a promise was rejected and nothing handled it: ${describe(reason)}`
        : open.escapedFailure(reason);
  });
  return () => escaped;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Answers the runner's frames until close or the end of input; the exit status. */
export async function serve(pipe: FramePipe): Promise<number> {
  /** Batches that came while a read waited for its answer, oldest first. */
  const ahead: unknown[] = [];
  const reader = pipeReader(pipe, ahead);
  const answer = (message: WorkerMessage) => pipe.write(message);
  let operator: WorkerOperator | undefined;
  /** A source's worker (source.nexmark, source.generator) makes records instead of running code. */
  let maker: NexmarkMaker | GeneratorMaker | undefined;
  const escaped = watchEscapedRejections(
    () => operator ?? (maker instanceof GeneratorMaker ? maker : undefined),
  );
  for (;;) {
    const frame = ahead.length > 0 ? ahead.shift() : pipe.read();
    if (frame === undefined) return 0;
    const type = messageType(frame);
    if (type === 'close') return 0;
    const kind = type === 'open' ? (frame as OpenMessage).operator.kind : undefined;
    if (kind === 'source.nexmark' || kind === 'source.generator') {
      try {
        const open = frame as OpenMessage;
        maker = kind === 'source.nexmark' ? NexmarkMaker.open(open) : GeneratorMaker.open(open);
        answer({ t: 'ready' });
      } catch (error) {
        answer({ t: 'error', message: describe(error) });
      }
    } else if (type === 'make' && maker !== undefined) {
      try {
        const made = await maker.make(frame as MakeMessage);
        await turn();
        const failure = escaped();
        answer(failure === undefined ? made : { t: 'error', message: failure });
      } catch (error) {
        answer({ t: 'error', message: describe(error) });
      }
    } else if (type === 'open') {
      try {
        operator = await WorkerOperator.open(frame as OpenMessage, reader);
        answer({ t: 'ready', onTimer: operator.hasOnTimer });
      } catch (error) {
        operator = undefined;
        answer({ t: 'error', message: describe(error) });
      }
    } else if (type === 'batch' && operator !== undefined) {
      try {
        const { out, writes } = await operator.runBatch(frame as BatchMessage);
        await turn();
        const failure = escaped();
        answer(failure === undefined ? { t: 'done', out, writes } : { t: 'error', message: failure });
      } catch (error) {
        answer({ t: 'error', message: describe(error) });
      }
    } else {
      // Answered, not fatal: the runner waits for an answer to every frame it sends.
      const why = type === 'batch' ? 'a batch before the operator opened' : `a frame ${type}`;
      answer({ t: 'error', message: `flink worker: unexpected ${why}` });
    }
  }
}
