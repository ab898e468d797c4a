// The inspector's "Test connection" as the host answers it, with a fake connector kind whose test
// says what its params tell it to: the server answering, failing, throwing, never answering.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineKind } from '../graph/kinds/kindDescriptor.js';
import { registerKindModule } from '../operators/kindFactories.js';
import type { ConnectionCheck, KindModule } from '../operators/kindFactory.js';
import type { ConnectionTestResult } from '../protocol/protocol.js';
import { NO_CONNECTION_TEST, testConnection } from './connectionTest.js';
import { answerMessage } from './hostConnection.js';
import { createHostService } from './hostService.js';

/** What the fake server was last asked, after `${env:NAME}` was resolved. */
const asked: { params: Readonly<Record<string, unknown>>; operatorId: string }[] = [];

const fakeKind: KindModule = {
  descriptor: defineKind({
    kind: 'test.fakeServer',
    role: 'source',
    params: z.strictObject({ url: z.string() }),
    ports: { inputs: false, outputs: ['out'] },
    keyedInput: 'never',
    available: true,
    designer: {
      label: 'Fake server',
      group: 'source',
      description: 'Answers connection tests as its url says.',
      idBase: 'fake',
      defaultParams: { url: 'fake://answers' },
      icon: '',
    },
  }),
  factory: {
    role: 'source',
    createSource: () => {
      throw new Error('a connection test never creates a source');
    },
    async testConnection(params, operatorId): Promise<ConnectionCheck> {
      asked.push({ params, operatorId });
      const url = String(params.url);
      if (url === 'fake://answers')
        return { ok: true, message: 'Fake at fake://answers answers; stream "s" exists' };
      if (url === 'fake://throws') throw new Error('socket hang up\n    at Socket.<anonymous> (net.js:1:1)');
      if (url === 'fake://lines') return { ok: false, message: 'the first line\nand a second' };
      if (url === 'fake://never') return new Promise<ConnectionCheck>(() => undefined);
      return {
        ok: false,
        message: `operator "${operatorId}": Fake at ${url} does not answer (ECONNREFUSED)`,
      };
    },
  },
};

const noTestKind: KindModule = {
  descriptor: defineKind({ ...fakeKind.descriptor, kind: 'test.noTest' }),
  factory: {
    role: 'source',
    createSource: () => {
      throw new Error('a connection test never creates a source');
    },
  },
};

let unregister: (() => void)[] = [];
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-conntest-'));
  unregister = [registerKindModule(fakeKind), registerKindModule(noTestKind)];
});
afterAll(async () => {
  for (const undo of unregister) undo();
  await rm(dir, { recursive: true, force: true });
});

const ask = (url: string, timeoutMs?: number, trusted = true) =>
  testConnection({ operatorId: 'src', kind: 'test.fakeServer', params: { url }, trusted }, timeoutMs);

describe('testConnection', () => {
  it("says ok with the factory's line when the server answers", async () => {
    expect(await ask('fake://answers')).toEqual({
      outcome: 'ok',
      message: 'Fake at fake://answers answers; stream "s" exists',
    });
  });

  it("says failed with the factory's line when it does not", async () => {
    expect(await ask('fake://closed:1')).toEqual({
      outcome: 'failed',
      message: 'operator "src": Fake at fake://closed:1 does not answer (ECONNREFUSED)',
    });
  });

  it('turns a factory that throws into a failure of one line, without its stack', async () => {
    expect(await ask('fake://throws')).toEqual({
      outcome: 'failed',
      message: 'operator "src": socket hang up',
    });
  });

  it("keeps a factory's first line only", async () => {
    expect(await ask('fake://lines')).toEqual({ outcome: 'failed', message: 'the first line' });
  });

  it('gives up on a factory that does not answer in time, saying so', async () => {
    expect(await ask('fake://never', 50)).toEqual({
      outcome: 'failed',
      message: 'operator "src": no answer within 0.05 s (is the server running and reachable?)',
    });
  });

  it('resolves ${env:NAME} in the host before the factory sees the params', async () => {
    process.env.PIPEWRIGHT_CONNTEST_URL = 'fake://answers';
    try {
      const result = await ask('${env:PIPEWRIGHT_CONNTEST_URL}');
      expect(result.outcome).toBe('ok');
      expect(asked.at(-1)).toEqual({ params: { url: 'fake://answers' }, operatorId: 'src' });
    } finally {
      delete process.env.PIPEWRIGHT_CONNTEST_URL;
    }
  });

  it('names a missing environment variable and does not ask the server', async () => {
    const before = asked.length;
    expect(await ask('${env:PIPEWRIGHT_CONNTEST_UNSET}')).toEqual({
      outcome: 'failed',
      message:
        'operator "src": param "url" names the environment variable PIPEWRIGHT_CONNTEST_UNSET, which is not set',
    });
    expect(asked.length).toBe(before);
  });

  it('of a job that is not trusted, reads no environment variable and asks no server', async () => {
    process.env.PIPEWRIGHT_CONNTEST_SECRET = 'fake://s3cret';
    try {
      const before = asked.length;
      expect(await ask('fake://${env:PIPEWRIGHT_CONNTEST_SECRET}@evil', undefined, false)).toEqual({
        outcome: 'failed',
        message:
          'operator "src": param "url" names the environment variable PIPEWRIGHT_CONNTEST_SECRET, and a job that is not trusted may not read the environment',
      });
      // A request that does not say it is trusted is not.
      const unsaid = await testConnection({
        operatorId: 'src',
        kind: 'test.fakeServer',
        params: { url: '${env:PIPEWRIGHT_CONNTEST_SECRET}' },
      });
      expect(unsaid.outcome).toBe('failed');
      expect(asked.length).toBe(before);
    } finally {
      delete process.env.PIPEWRIGHT_CONNTEST_SECRET;
    }
  });

  it('says a kind has no connection test, known or not', async () => {
    const none: ConnectionTestResult = { outcome: 'none', message: NO_CONNECTION_TEST };
    expect(await testConnection({ operatorId: 'a', kind: 'test.noTest', params: {} })).toEqual(none);
    expect(await testConnection({ operatorId: 'a', kind: 'source.jsonl', params: {} })).toEqual(none);
    expect(await testConnection({ operatorId: 'a', kind: 'no.such.kind', params: {} })).toEqual(none);
  });
});

describe('connection.test, as a client calls it', () => {
  it('answers through the host protocol and refuses params of the wrong shape', async () => {
    const host = createHostService({
      transport: 'websocket',
      version: '0.0.0',
      dataDir: join(dir, 'data'),
      examplesDir: fileURLToPath(new URL('../../assets/examples', import.meta.url)),
    });
    try {
      const answer = await answerMessage(host, {
        type: 'request',
        id: 1,
        method: 'connection.test',
        params: { operatorId: 'src', kind: 'test.fakeServer', params: { url: 'fake://answers' } },
      });
      expect(answer.error).toBeUndefined();
      expect(answer.result).toEqual({
        outcome: 'ok',
        message: 'Fake at fake://answers answers; stream "s" exists',
      });
      const refused = await answerMessage(host, {
        type: 'request',
        id: 2,
        method: 'connection.test',
        params: { operatorId: 'src', kind: 'test.fakeServer', params: ['x'] } as never,
      });
      expect(refused.error?.message).toBe('connection.test: params.params must be an object');
      const notBoolean = await answerMessage(host, {
        type: 'request',
        id: 3,
        method: 'connection.test',
        params: { operatorId: 'src', kind: 'test.fakeServer', params: {}, trusted: 'yes' } as never,
      });
      expect(notBoolean.error?.message).toBe('connection.test: params.trusted must be true or false');
    } finally {
      await host.close();
    }
  });
});
