// The host's method table for tests, called as a client calls it (protocol messages through
// answerMessage) against the real engine, with every event it sends kept. One host per test, in
// a temporary folder of its own (under one folder per test file, removed at the end).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { answerMessage } from '../engine/host/hostConnection.js';
import { createHostService, type HostService, type HostServiceOptions } from '../engine/host/hostService.js';
import type {
  EventMessage,
  HostEvent,
  HostEvents,
  HostMethod,
  ParamsOf,
  ResponseMessage,
  ResultOf,
} from '../engine/protocol/protocol.js';

export interface HostSession {
  /** This test's folder: the job files, their inputs and outputs, the host's data folder. */
  readonly dir: string;
  readonly host: HostService;
  /** Every event the host sent in this test, in order. */
  readonly events: readonly EventMessage[];
  call<M extends HostMethod>(method: M, params: ParamsOf<M>): Promise<ResponseMessage>;
  /** The result of a call that must succeed. */
  result<M extends HostMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** The error message of a call that must fail; params may be anything a peer could send. */
  failure(method: string, params: unknown): Promise<string>;
  /** The events of a kind, of one run if `runId` is given. */
  eventsOf<E extends HostEvent>(event: E, runId?: string): HostEvents[E][];
  /** Polls `probe` until it gives a value; the error names `what` and the last statuses sent. */
  until<T>(what: string, probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  /** The last status a run sent. */
  statusOf(runId: string): HostEvents['run.status'] | undefined;
  /** Waits for a run to finish, fail or stop (20 s unless `timeoutMs` says); its last status. */
  ended(runId: string, timeoutMs?: number): Promise<HostEvents['run.status']>;
  /** Closes this test's host and opens another on the same folder, with `options` changed. */
  reopen(options?: Partial<HostServiceOptions>): Promise<void>;
}

/** Longer than any call a test makes takes, even on a loaded machine; shorter than the tests' timeouts. */
const ANSWER_WITHIN_MS = 120_000;

async function answerWithin<T>(answer: Promise<T>, method: string, statuses: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `${method} has not answered in ${ANSWER_WITHIN_MS / 1000} s; the last statuses: ${statuses()}`,
          ),
        ),
      ANSWER_WITHIN_MS,
    );
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Registers the hooks; the object returned always speaks for the current test. */
export function hostSessionPerTest(prefix: string): HostSession {
  let root = '';
  let dir = '';
  let host: HostService | undefined;
  let events: EventMessage[] = [];
  let nextId = 1;

  const open = (options: Partial<HostServiceOptions> = {}) => {
    host = createHostService({
      transport: 'websocket',
      version: '0.0.0',
      dataDir: join(dir, 'data'),
      examplesDir: dir,
      ...options,
    });
    host.subscribe((message) => events.push(message));
  };
  const current = () => {
    if (host === undefined) throw new Error('hostSessionPerTest: no host outside a test');
    return host;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(root, 'job-'));
    events = [];
    open();
  });
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  const session: HostSession = {
    get dir() {
      return dir;
    },
    get host() {
      return current();
    },
    get events() {
      return events;
    },
    call: (method, params) => answerMessage(current(), { type: 'request', id: nextId++, method, params }),
    async result(method, params) {
      // A call the host never answers is a wedged designer: name it, rather than let the test's
      // own timeout say only that something took too long.
      const response = await answerWithin(session.call(method, params), method, () =>
        JSON.stringify(session.eventsOf('run.status').slice(-3)),
      );
      expect(response.error?.message).toBeUndefined();
      return response.result as ResultOf<typeof method>;
    },
    async failure(method, params) {
      const response = await answerMessage(current(), { type: 'request', id: nextId++, method, params });
      expect(response.result).toBeUndefined();
      expect(response.error).toBeDefined();
      return response.error!.message;
    },
    eventsOf: <E extends HostEvent>(event: E, runId?: string) =>
      events
        .filter((m) => m.event === event)
        .map((m) => m.data as HostEvents[E])
        .filter((d) => runId === undefined || (d as { runId?: string }).runId === runId),
    async until(what, probe, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) {
          const statuses = JSON.stringify(session.eventsOf('run.status').slice(-3));
          throw new Error(`timed out waiting for ${what}; the last statuses: ${statuses}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    statusOf: (runId) => session.eventsOf('run.status', runId).at(-1),
    ended: (runId, timeoutMs) =>
      session.until(
        `run ${runId} to end`,
        () => {
          const s = session.statusOf(runId);
          return s !== undefined && ['finished', 'failed', 'stopped'].includes(s.status) ? s : undefined;
        },
        timeoutMs,
      ),
    async reopen(options) {
      await host?.close();
      open(options);
    },
  };
  return session;
}
