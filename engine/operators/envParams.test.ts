import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JobError } from '../graph/jobError.js';
import { defineKind } from '../graph/kinds/kindDescriptor.js';
import type { PlannedOperator } from '../graph/plan.js';
import { resolveEnvParams } from './envParams.js';
import { registerKindModule } from './kindFactories.js';
import { prepareOperator, testConnection } from './registry.js';

const ENV = { PG_URL: 'postgres://u:secret@db:5432/x', HOST: 'kafka', PORT: '9092', EMPTY: '' };

describe('resolveEnvParams', () => {
  it('replaces every reference in strings at any depth, alone or inside text', () => {
    const params = {
      connection: '${env:PG_URL}',
      brokers: ['${env:HOST}:${env:PORT}', 'other:1'],
      auth: { user: 'me', nested: [{ url: 'x-${env:HOST}-y' }] },
      empty: '${env:EMPTY}',
      count: 3,
      flag: true,
      none: null,
    };
    expect(resolveEnvParams(params, 'orders', ENV)).toEqual({
      connection: 'postgres://u:secret@db:5432/x',
      brokers: ['kafka:9092', 'other:1'],
      auth: { user: 'me', nested: [{ url: 'x-kafka-y' }] },
      empty: '',
      count: 3,
      flag: true,
      none: null,
    });
  });

  it('leaves the params it was given as written (a copy carries the values)', () => {
    const params = { connection: '${env:PG_URL}' };
    resolveEnvParams(params, 'orders', ENV);
    expect(params.connection).toBe('${env:PG_URL}');
    const plain = { table: 't' };
    expect(resolveEnvParams(plain, 'orders', ENV)).toBe(plain);
  });

  it('leaves text that is not a well-formed reference alone (validation names it)', () => {
    expect(resolveEnvParams({ a: '${env:}', b: '${env:A-B}', c: '$HOME' }, 'o', ENV)).toEqual({
      a: '${env:}',
      b: '${env:A-B}',
      c: '$HOME',
    });
  });

  it('names the operator, the param and the variable when the variable is not set', () => {
    const call = () => resolveEnvParams({ auth: { urls: ['ok', '${env:PG_PASSWORD}'] } }, 'orders', ENV);
    expect(call).toThrow(JobError);
    expect(call).toThrow(
      'operator "orders": param "auth.urls[1]" names the environment variable PG_PASSWORD, which is not set',
    );
  });
});

describe('prepareOperator', () => {
  it('resolves before the factory runs: a missing variable fails naming the operator', () => {
    delete process.env.PIPEWRIGHT_TEST_UNSET_DIR;
    const planned = {
      id: 'in',
      parallelism: 1,
      operator: {
        id: 'in',
        kind: 'source.jsonl',
        params: { path: '${env:PIPEWRIGHT_TEST_UNSET_DIR}/a.jsonl' },
      },
    } as unknown as PlannedOperator;
    expect(() => prepareOperator(planned, '/tmp', undefined)).toThrow(
      'operator "in": param "path" names the environment variable PIPEWRIGHT_TEST_UNSET_DIR, which is not set',
    );
  });

  it('gives the subtasks the operator with its params resolved, the plan keeping its own', () => {
    process.env.PIPEWRIGHT_TEST_IN_DIR = '/data/in';
    const planned = {
      id: 'in',
      parallelism: 1,
      operator: { id: 'in', kind: 'source.jsonl', params: { path: '${env:PIPEWRIGHT_TEST_IN_DIR}/a.jsonl' } },
    } as unknown as PlannedOperator;
    const prepared = prepareOperator(planned, '/tmp', undefined);
    expect(prepared.planned?.operator.params).toEqual({ path: '/data/in/a.jsonl' });
    expect(planned.operator.params).toEqual({ path: '${env:PIPEWRIGHT_TEST_IN_DIR}/a.jsonl' });
    delete process.env.PIPEWRIGHT_TEST_IN_DIR;
  });
});

describe('testConnection', () => {
  it('says so, without throwing, for a kind with nothing to test or a variable not set', async () => {
    expect(await testConnection('source.jsonl', { path: 'a.jsonl' }, 'in')).toEqual({
      ok: false,
      message: 'kind source.jsonl has no connection to test',
    });
    const unregister = registerProbe();
    try {
      delete process.env.PIPEWRIGHT_TEST_UNSET_URL;
      expect(await testConnection('test.probe', { url: '${env:PIPEWRIGHT_TEST_UNSET_URL}' }, 'p')).toEqual({
        ok: false,
        message:
          'operator "p": param "url" names the environment variable PIPEWRIGHT_TEST_UNSET_URL, which is not set',
      });
    } finally {
      unregister();
    }
  });

  it("hands the kind's test the resolved params", async () => {
    const unregister = registerProbe();
    process.env.PIPEWRIGHT_TEST_URL = 'redis://secret@host';
    try {
      expect(await testConnection('test.probe', { url: '${env:PIPEWRIGHT_TEST_URL}/0' }, 'p')).toEqual({
        ok: true,
        message: 'p would connect to redis://secret@host/0',
      });
    } finally {
      unregister();
      delete process.env.PIPEWRIGHT_TEST_URL;
    }
  });
});

/** A source kind whose only use is its connection test, which says what it was given. */
function registerProbe(): () => void {
  return registerKindModule({
    descriptor: defineKind({
      kind: 'test.probe',
      role: 'source',
      params: z.strictObject({ url: z.string() }),
      ports: { inputs: false, outputs: ['out'] },
      keyedInput: 'never',
      available: true,
      designer: {
        label: 'Probe',
        group: 'source',
        description: 'A test kind.',
        idBase: 'probe',
        defaultParams: { url: '' },
        icon: 'M2 2h12',
      },
    }),
    factory: {
      role: 'source',
      createSource: () => {
        throw new Error('not run');
      },
      testConnection: async (params, operatorId) => ({
        ok: true,
        message: `${operatorId} would connect to ${String(params.url)}`,
      }),
    },
  });
}
