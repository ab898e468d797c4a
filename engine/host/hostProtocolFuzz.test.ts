// The engine host under a few thousand random and mutated frames through the browser form's real
// WebSocket (test/hostProtocolFrames.ts says what they are), one at a time and in bursts: it must
// answer each one, within a bound, with exactly one response that is an error or a result of the
// protocol's shape, and still work afterwards. The seed is printed; PIPEWRIGHT_FUZZ_SEED=N replays
// a run and PIPEWRIGHT_FUZZ_RUNS=N changes how many frames it sends.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asFrame, type Frame, type FrameSpace, frames, validRequest } from '../../test/hostProtocolFrames.js';
import { checkResponse, requestOf, responseIdOf } from '../../test/hostProtocolShapes.js';
import { HostSocketClient } from '../../test/hostSocketClient.js';
import { fuzzSettings } from '../../test/tier.js';
import type { ResponseMessage, RunInfo } from '../protocol/protocol.js';
import { MAX_ERROR_CHARS } from './hostConnection.js';
import { startWebServer, type WebServer } from './webServer.js';

// A fixed seed and a few hundred inputs in `npm test`, a random seed and thousands in the soak tier.
const { seed: SEED, runs: RUNS } = fuzzSettings(3000, 300);
/** Longer than any answer takes (a run start on a loaded machine included): a hang, not slowness. */
const ANSWER_BOUND_MS = 30_000;
/** Each fuzz stops generating after this, however many frames it has sent. */
const TIME_LIMIT_MS = 180_000;
/** Requests in flight at once in a burst, at most. */
const MAX_BURST = 6;

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

function describeFrame(frame: Frame): string {
  const text = frame.kind === 'text' ? frame.text : `binary ${Buffer.from(frame.bytes).toString('hex')}`;
  return text.length > 600 ? `${text.slice(0, 600)}… (${text.length} characters)` : text;
}

/** Results and errors so far, and results per method: how far into the host the fuzz got. */
class Tally {
  results = 0;
  errors = 0;
  readonly reached = new Map<string, number>();
  /** The latest run a run.start answered with: where CURRENT_RUN in a frame points. */
  latestRun = 'no-run-yet';

  /** Checks an answer to a frame; throws saying what is wrong with it. */
  check(frame: Frame, response: ResponseMessage, client: HostSocketClient): void {
    const problem = checkResponse(frame, response) ?? client.problems.shift();
    if (problem !== undefined) {
      throw new Error(
        // The answer first: a report cut to its first line still shows what was wrong with it.
        `${problem}; the answer: ${JSON.stringify(response).slice(0, 600)}; the frame: ${describeFrame(frame)}`,
      );
    }
    if (response.error !== undefined) {
      this.errors++;
      return;
    }
    this.results++;
    const method = requestOf(frame)?.method ?? '';
    this.reached.set(method, (this.reached.get(method) ?? 0) + 1);
    const runId = (response.result as Partial<RunInfo> | undefined)?.runId;
    if (method === 'run.start' && typeof runId === 'string') this.latestRun = runId;
  }

  summary(): string {
    return `${this.results} results, ${this.errors} errors; results by method: ${JSON.stringify(Object.fromEntries(this.reached))}`;
  }
}

/** Runs a fuzz; on failure throws a summary (fast-check's own report prints frames of megabytes whole). */
async function fuzz<T>(
  what: string,
  values: fc.Arbitrary<T>,
  numRuns: number,
  send: (value: T) => Promise<void>,
): Promise<number> {
  const details = await fc.check(fc.asyncProperty(values, send), {
    seed: SEED,
    numRuns,
    endOnFailure: true,
    plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)],
  });
  if (details.failed) {
    const why =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${what} ${details.numRuns} of seed ${SEED} failed (PIPEWRIGHT_FUZZ_SEED=${SEED} replays it): ${why}`,
    );
  }
  return details.numRuns;
}

/** Sends a frame and awaits its answer, naming the frame if none comes. */
async function answerTo(client: HostSocketClient, frame: Frame): Promise<ResponseMessage> {
  try {
    return await client.ask(frame, responseIdOf(frame));
  } catch (error) {
    throw new Error(`${(error as Error).message}; the frame: ${describeFrame(frame)}`);
  }
}

/** The host still answers, and still runs a job to its end. */
async function expectStillWorking(client: HostSocketClient, latestRun: string): Promise<void> {
  expect(await client.call(1, 'host.info', {})).toMatchObject({ id: 1, result: { transport: 'websocket' } });
  await client.call(2, 'run.stop', { runId: latestRun });
  const started = await client.call(3, 'run.start', {
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
  expect(client.problems).toEqual([]);
}

describe('frames the fuzz found answered wrongly, each answered now', () => {
  let client: HostSocketClient;
  beforeAll(async () => {
    client = await HostSocketClient.open(server, ANSWER_BOUND_MS);
  });
  afterAll(() => client?.close());

  it('a method that is an object whose toString is no function: refused, where it went unanswered and threw', async () => {
    for (const method of [{ toString: 1 }, { valueOf: {}, toString: null }, [{ toString: 'x' }], 42]) {
      expect(await client.call(3, method, {})).toEqual({
        type: 'response',
        id: 3,
        error: { message: 'Invalid request: method must be a string' },
      });
    }
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
        { path: huge, inputs: [] },
        /^Cannot check the files of """.*: the path must be absolute$/,
      ],
    ] as const) {
      const message = (await client.call(5, method, params)).error?.message ?? '';
      expect(message.length, method).toBeLessThanOrEqual(MAX_ERROR_CHARS + 100);
      expect(message, method).toMatch(/ … \(\d+ characters left out\) … /);
      expect(message, method).toMatch(reason);
    }
    expect(client.problems).toEqual([]);
  });
});

it(`answers ${RUNS} random and mutated frames one at a time, each with one error or result of the protocol's shape, and then still works`, {
  timeout: TIME_LIMIT_MS + 60_000,
}, async () => {
  console.info(`host protocol fuzz: seed ${SEED} (PIPEWRIGHT_FUZZ_SEED=${SEED} replays it)`);
  const client = await HostSocketClient.open(server, ANSWER_BOUND_MS);
  const tally = new Tally();
  const sent = await fuzz('frame', frames(space), RUNS, async (generated) => {
    const frame = asFrame(generated, tally.latestRun);
    tally.check(frame, await answerTo(client, frame), client);
  });
  console.info(
    `host protocol fuzz: ${sent} frames, ${client.statuses.length} run statuses, ${tally.summary()}`,
  );
  expect(sent).toBeGreaterThan(0);

  // Nothing a frame held reached Object.prototype.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  expect(existsSync(join(space.sandbox, 'polluted.txt'))).toBe(false);

  await expectStillWorking(client, tally.latestRun);
  client.close();
});

it(`answers bursts of up to ${MAX_BURST} valid requests in flight at once, each exactly once, and then still works`, {
  timeout: TIME_LIMIT_MS + 60_000,
}, async () => {
  const client = await HostSocketClient.open(server, ANSWER_BOUND_MS);
  const tally = new Tally();
  const bursts = fc.array(validRequest(space), { minLength: 2, maxLength: MAX_BURST });
  const sent = await fuzz('burst', bursts, Math.ceil(RUNS / 10), async (burst) => {
    // Ids unique within the burst, so that each answer is known by its id whatever the order.
    const frames = burst.map((message, index) =>
      asFrame({ kind: 'message', message: { ...message, id: index + 1 } }, tally.latestRun),
    );
    const answers = await Promise.all(frames.map((frame) => answerTo(client, frame)));
    frames.forEach((frame, index) => {
      tally.check(frame, answers[index] as ResponseMessage, client);
    });
  });
  console.info(`host protocol fuzz: ${sent} bursts, ${tally.summary()}`);
  expect(sent).toBeGreaterThan(0);
  await expectStillWorking(client, tally.latestRun);
  client.close();
});
