// The engine host under a few thousand random and mutated frames through the browser form's real
// WebSocket (test/hostProtocolFrames.ts says what they are): it must answer each one, within a
// bound, with exactly one response that is an error or a result of the protocol's shape, and
// still work afterwards. The seed is printed; PIPEWRIGHT_FUZZ_SEED=N replays a run and
// PIPEWRIGHT_FUZZ_RUNS=N changes how many frames it sends.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { asFrame, type Frame, type FrameSpace, frames } from '../../test/hostProtocolFrames.js';
import { checkResponse, requestOf, responseIdOf } from '../../test/hostProtocolShapes.js';
import { MAX_ERROR_CHARS } from './hostConnection.js';
import type { EventMessage, HostMessage, ResponseMessage, RunInfo } from './protocol.js';
import { HOST_PATH, startWebServer, type WebServer } from './webServer.js';

const RUNS = Number(process.env.PIPEWRIGHT_FUZZ_RUNS ?? 3000);
const SEED = Number(process.env.PIPEWRIGHT_FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Longer than any answer takes (a run start on a loaded machine included): a hang, not slowness. */
const ANSWER_BOUND_MS = 30_000;
/** The whole fuzz stops generating after this, however many frames it has sent. */
const TIME_LIMIT_MS = 240_000;

const examplesDir = fileURLToPath(new URL('../../assets/examples', import.meta.url));

const COUNT_CODE = `function process(r, ctx) {
  const count = ctx.state.value("count");
  const n = (count.get() ?? 0) + 1;
  count.set(n);
  ctx.emit({ user: ctx.key, n });
}`;

const JOB = {
  format: 'pipewright.job/1',
  name: 'fuzz',
  settings: { checkpointIntervalMs: 20, stateBackend: 'level' },
  operators: [
    { id: 'events', kind: 'source.jsonl', parallelism: 1, params: { path: 'events.jsonl' } },
    { id: 'count', kind: 'process', parallelism: 2, params: { code: COUNT_CODE } },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/counts.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'events', to: 'count', partition: 'hash', key: 'user' },
    { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
  ],
};

let root: string;
let space: FrameSpace;
let server: WebServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-fuzz-'));
  const sandbox = join(root, 'sandbox');
  const rendererDir = join(root, 'renderer');
  await mkdir(sandbox);
  await mkdir(rendererDir);
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>designer</title>\n');
  // The job and its input are in a folder of the sandbox that no generated path reaches, so
  // the fuzz's own file writes cannot spoil the runs it starts.
  const jobDir = join(sandbox, 'job');
  await mkdir(jobDir);
  const users = ['a', 'b', 'c', 'd', 'e'];
  const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ user: users[i % users.length], i }));
  await writeFile(join(jobDir, 'events.jsonl'), `${lines.join('\n')}\n`);
  const jobText = `${JSON.stringify(JOB, null, 2)}\n`;
  const jobPath = join(jobDir, 'fuzz.job.json');
  await writeFile(jobPath, jobText);
  space = { sandbox, jobText, jobPath, operators: JOB.operators.map((op) => op.id) };
  server = await startWebServer({ rendererDir, dataDir: join(root, 'data'), examplesDir });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** One client of the host: frames out, one response awaited at a time, events checked as they come. */
class FuzzClient {
  private waiting: ((message: ResponseMessage) => void) | undefined;
  /** What arrived that should not have: an answer nobody asked for, an event of the wrong shape. */
  readonly problems: string[] = [];
  latestRun = 'no-run-yet';
  readonly statuses: RunInfo[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => this.receive(String(data), isBinary));
  }

  static async open(): Promise<FuzzClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${HOST_PATH}?token=${server.token}`, {
      origin: `http://127.0.0.1:${server.port}`,
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new FuzzClient(socket);
  }

  private receive(text: string, isBinary: boolean): void {
    let message: HostMessage;
    try {
      message = JSON.parse(text);
    } catch {
      this.problems.push(`the host sent a frame that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (isBinary) this.problems.push('the host sent a binary frame');
    if (message.type === 'event') {
      this.event(message);
      return;
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting === undefined) this.problems.push(`an answer nobody waited for: ${text.slice(0, 200)}`);
    else waiting(message);
  }

  private event(message: EventMessage): void {
    const data = message.data as { runId?: unknown } | null;
    if (typeof message.event !== 'string' || typeof data !== 'object' || data === null) {
      this.problems.push(`an event of no known shape: ${JSON.stringify(message).slice(0, 200)}`);
    } else if (message.event === 'run.status') {
      this.statuses.push(data as RunInfo);
    }
  }

  /** Sends a frame and resolves with its answer; rejects if none comes within the bound. */
  ask(frame: Frame): Promise<ResponseMessage> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== WebSocket.OPEN) {
        reject(new Error(`the host closed the connection (state ${this.socket.readyState})`));
        return;
      }
      const done = (settle: () => void): void => {
        clearTimeout(timer);
        this.waiting = undefined;
        this.socket.off('close', onClose);
        settle();
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no answer within ${ANSWER_BOUND_MS} ms`))),
        ANSWER_BOUND_MS,
      );
      const onClose = (code: number): void =>
        done(() => reject(new Error(`the host closed the connection (${code}) instead of answering`)));
      this.socket.once('close', onClose);
      this.waiting = (message) => done(() => resolve(message));
      const data = frame.kind === 'text' ? frame.text : frame.bytes;
      this.socket.send(data, { binary: frame.kind === 'binary' }, (error) => {
        if (error) done(() => reject(error));
      });
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** A text frame of one request. */
const request = (id: number, method: unknown, params: unknown): Frame => ({
  kind: 'text',
  text: JSON.stringify({ type: 'request', id, method, params }),
});

describe('frames the fuzz found answered wrongly, each answered now', () => {
  let client: FuzzClient;
  beforeAll(async () => {
    client = await FuzzClient.open();
  });
  afterAll(() => client?.close());

  it('a method that is an object whose toString is no function: refused, where it went unanswered and threw', async () => {
    for (const method of [{ toString: 1 }, { valueOf: {}, toString: null }, [{ toString: 'x' }]]) {
      expect(await client.ask(request(3, method, {}))).toEqual({
        type: 'response',
        id: 3,
        error: { message: 'Invalid request: method must be a string' },
      });
    }
    expect(await client.ask(request(4, 42, {}))).toMatchObject({
      id: 4,
      error: { message: 'Invalid request: method must be a string' },
    });
    expect(client.problems).toEqual([]);
  });

  it('a path of megabytes: the error keeps its start and its reason, not the megabytes', async () => {
    const huge = `${'"'.repeat(3_000_000)}.job.json`;
    const absolute = join(space.sandbox, huge);
    for (const [method, params, reason] of [
      ['file.read', { path: absolute }, /^Cannot open \/.*: the name is too long$/],
      ['file.list', { dir: absolute }, /^Cannot list \/.*: the name is too long$/],
      ['file.read', { path: huge }, /^Cannot open """.*: the path must be absolute$/],
      [
        'job.checkFiles',
        { path: huge, text: space.jobText },
        /^Cannot check the files of """.*: the path must be absolute$/,
      ],
    ] as const) {
      const answer = await client.ask(request(5, method, params));
      const message = answer.error?.message ?? '';
      expect(message.length, method).toBeLessThanOrEqual(MAX_ERROR_CHARS + 100);
      expect(message, method).toMatch(/ … \(\d+ characters left out\) … /);
      expect(message, method).toMatch(reason);
    }
    expect(client.problems).toEqual([]);
  });
});

function describeFrame(frame: Frame): string {
  const text = frame.kind === 'text' ? frame.text : `binary ${Buffer.from(frame.bytes).toString('hex')}`;
  return text.length > 600 ? `${text.slice(0, 600)}… (${text.length} characters)` : text;
}

it(`answers ${RUNS} random and mutated frames, each with one error or result of the protocol's shape, and then still works`, {
  timeout: TIME_LIMIT_MS + 120_000,
}, async () => {
  console.info(`host protocol fuzz: seed ${SEED} (PIPEWRIGHT_FUZZ_SEED=${SEED} replays it)`);
  const client = await FuzzClient.open();
  const counts = { result: 0, error: 0 };
  /** Results per method: how far into the host the fuzz got. */
  const reached = new Map<string, number>();
  const details = await fc.check(
    fc.asyncProperty(frames(space), async (generated) => {
      const frame = asFrame(generated, client.latestRun);
      let response: ResponseMessage;
      try {
        response = await client.ask(frame);
      } catch (error) {
        throw new Error(`${(error as Error).message}; the frame: ${describeFrame(frame)}`);
      }
      const problem = checkResponse(frame, response) ?? client.problems.shift();
      if (problem !== undefined) {
        throw new Error(
          `${problem}; the frame: ${describeFrame(frame)}; the answer: ${JSON.stringify(response).slice(0, 600)}`,
        );
      }
      if (response.error === undefined) {
        counts.result++;
        const method = requestOf(frame)?.method ?? '';
        reached.set(method, (reached.get(method) ?? 0) + 1);
      } else {
        counts.error++;
      }
      const runId = (response.result as Partial<RunInfo> | undefined)?.runId;
      if (typeof runId === 'string' && responseIdOf(frame) !== -1) client.latestRun = runId;
    }),
    {
      seed: SEED,
      numRuns: RUNS,
      endOnFailure: true,
      plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)],
    },
  );
  console.info(
    `host protocol fuzz: ${details.numRuns} frames, ${counts.result} results, ${counts.error} errors, ${client.statuses.length} run statuses; results by method: ${JSON.stringify(Object.fromEntries(reached))}`,
  );
  if (details.failed) {
    // fast-check's own report prints the whole frame, which may be megabytes: the error holds a summary.
    const why =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `frame ${details.numRuns} of seed ${SEED} failed (PIPEWRIGHT_FUZZ_SEED=${SEED} replays it): ${why}`,
    );
  }
  expect(client.problems).toEqual([]);
  expect(details.numRuns).toBeGreaterThan(0);

  // Nothing a frame held reached Object.prototype.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  expect(existsSync(join(space.sandbox, 'polluted.txt'))).toBe(false);

  // The host still answers, and still runs a job to its end.
  const ask = (method: string, params: unknown) =>
    client.ask({ kind: 'text', text: JSON.stringify({ type: 'request', id: 1, method, params }) });
  expect(await ask('host.info', {})).toMatchObject({ id: 1, result: { transport: 'websocket' } });
  await ask('run.stop', { runId: client.latestRun });
  const started = await ask('run.start', {
    text: space.jobText,
    path: space.jobPath,
    mode: 'run',
    previewSinks: true,
  });
  expect(started.error).toBeUndefined();
  const { runId } = started.result as RunInfo;
  const deadline = Date.now() + ANSWER_BOUND_MS;
  const ended = () =>
    client.statuses.find((s) => s.runId === runId && !['starting', 'running'].includes(s.status));
  while (ended() === undefined && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(ended()).toMatchObject({ status: 'finished' });
  client.close();
});
