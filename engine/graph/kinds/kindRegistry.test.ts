import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobJsonSchema } from '../jsonSchema.js';
import { planJob } from '../plan.js';
import { isSink, isSource, JOB_FORMAT, OPERATOR_KINDS } from '../schema.js';
import { validateJob } from '../validation/validateJob.js';
import { BUILTIN_KINDS } from './builtinKinds.js';
import { defineKind, type KindDescriptor, paramsOf } from './kindDescriptor.js';
import { findKind, kindFields, kindNames, listKinds, registerKind } from './kindRegistry.js';

// Kinds a connector package might add, declared here in test code only.
const queueSource = defineKind({
  kind: 'source.testQueue',
  role: 'source',
  params: z.strictObject({ queue: z.string().min(1), batch: z.number().int().min(1).optional() }),
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Test queue',
    group: 'source',
    description: 'Reads a queue.',
    idBase: 'queue',
    defaultParams: { queue: 'q' },
    icon: 'M2 2h12v12H2z',
  },
});

const ledgerSink = defineKind({
  kind: 'sink.testLedger',
  role: 'sink',
  params: z.strictObject({ table: z.string() }),
  ports: { inputs: true, outputs: [] },
  keyedInput: 'always',
  available: true,
  designer: {
    label: 'Test ledger',
    group: 'sink',
    description: 'Writes to a ledger, one key at a time.',
    idBase: 'ledger',
    defaultParams: { table: 't' },
    icon: 'M2 2h12v12H2z',
  },
});

const router = defineKind({
  kind: 'testRouter',
  role: 'transform',
  params: z.strictObject({ code: z.string() }),
  ports: { inputs: true, outputs: ['out', 'errors'] },
  userCode: {
    functionName: 'route',
    requiredFunctions: ['setup', 'route'],
    signature: 'function route(r, ctx) {}',
  },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Router',
    group: 'transform',
    description: 'Routes records.',
    idBase: 'router',
    defaultParams: { code: 'function setup() {}\nfunction route(r, ctx) { ctx.emit(r); }\n' },
    icon: 'M2 8h12',
  },
});

const removals: (() => void)[] = [];
function register(...kinds: KindDescriptor[]): void {
  for (const kind of kinds) removals.push(registerKind(kind));
}
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

const queueJob = (sinkParams: unknown = { table: 'ledger' }) => ({
  format: JOB_FORMAT,
  name: 'registered kinds',
  operators: [
    { id: 'q', kind: 'source.testQueue', params: { queue: 'orders' } },
    { id: 'l', kind: 'sink.testLedger', params: sinkParams },
  ],
  edges: [{ id: 'e1', from: 'q', to: 'l', partition: 'hash', key: 'owner' }],
});

describe('the kind registry', () => {
  it('starts with the built-in kinds, in the contract order', () => {
    expect(kindNames()).toEqual(OPERATOR_KINDS);
    expect(listKinds()).toEqual(BUILTIN_KINDS);
  });

  it('gives every built-in kind default params that validate', () => {
    for (const kind of BUILTIN_KINDS) {
      expect(kind.params.safeParse(kind.designer.defaultParams).success, kind.kind).toBe(true);
    }
  });

  it('says a kind is a source or a sink by its role, registered or not', () => {
    expect(isSource('source.generator')).toBe(true);
    expect(isSink('sink.jsonl')).toBe(true);
    expect(isSource('source.testQueue')).toBe(false);
    register(queueSource);
    expect(isSource('source.testQueue')).toBe(true);
    expect(isSink('map') || isSource('map') || isSink('nothing')).toBe(false);
  });

  it('refuses a second kind of a name already registered', () => {
    expect(() => registerKind({ ...queueSource, kind: 'map' })).toThrow('kind "map" is already registered');
  });

  it('a kind registered at run time is validated, planned and in the JSON Schema', () => {
    expect(validateJob(queueJob()).problems.map((p) => p.code)).toEqual(['unknown-kind', 'unknown-kind']);
    register(queueSource, ledgerSink);
    const { job, problems } = validateJob(queueJob());
    expect(problems).toEqual([]);
    expect(job?.operators.map((op) => [op.kind, op.parallelism])).toEqual([
      ['source.testQueue', 1],
      ['sink.testLedger', 1],
    ]);
    expect(planJob(job!).operators.map((op) => op.id)).toEqual(['q', 'l']);
    const queue: { queue: string; batch?: number } = paramsOf(queueSource, job!.operators[0]!);
    expect(queue).toEqual({ queue: 'orders' });
    expect(() => paramsOf(ledgerSink, job!.operators[0]!)).toThrow(
      'an operator of kind "source.testQueue" read as a "sink.testLedger"',
    );
    type Variant = { properties: { kind: { const: string } } };
    const { operators } = jobJsonSchema().properties as { operators: { items: { oneOf: Variant[] } } };
    expect(operators.items.oneOf.map((v) => v.properties.kind.const)).toEqual([
      ...OPERATOR_KINDS,
      'source.testQueue',
      'sink.testLedger',
    ]);
  });

  it("checks a registered kind's params with its schema, in the usual words", () => {
    register(queueSource, ledgerSink);
    expect(validateJob(queueJob({ table: 'x', tables: 'y' })).problems).toEqual([
      {
        code: 'unknown-field',
        message: 'operator "l": params.tables is not a known field (did you mean "table"?)',
        path: '$.operators[1].params.tables',
        ids: ['l'],
      },
    ]);
  });

  it("runs a registered kind's own checks across its params", () => {
    // A batch only from a queue that batches: a rule about two params, beyond a field's schema.
    const batchingQueue = defineKind({
      ...queueSource,
      checkParams: (params) =>
        typeof params.batch === 'number' && params.queue === 'orders'
          ? [
              {
                code: 'invalid-value',
                path: ['batch'],
                message: 'queue "orders" is read one record at a time',
              },
            ]
          : [],
    });
    register(batchingQueue, ledgerSink);
    const job = queueJob();
    expect(validateJob(job).problems).toEqual([]);
    job.operators[0] = { id: 'q', kind: 'source.testQueue', params: { queue: 'orders', batch: 5 } };
    expect(validateJob(job).problems).toEqual([
      {
        code: 'invalid-value',
        message: 'operator "q": queue "orders" is read one record at a time',
        path: '$.operators[0].params.batch',
        ids: ['q'],
      },
    ]);
  });

  it('names registered kinds among the known ones, and forgets them when removed', () => {
    register(queueSource);
    const job = {
      format: JOB_FORMAT,
      name: 'n',
      operators: [{ id: 'a', kind: 'source.testQeue', params: {} }],
    };
    const [problem] = validateJob(job).problems;
    expect(problem?.message).toContain('source.testQueue');
    expect(problem?.message).toContain('did you mean "source.testQueue"?');
    for (const remove of removals.splice(0)) remove();
    expect(findKind('source.testQueue')).toBeUndefined();
    expect(validateJob(job).problems[0]?.message).not.toContain('source.testQueue');
  });

  it("applies a registered kind's roles, ports, keyed inputs and required functions", () => {
    register(queueSource, ledgerSink, router);
    const job = {
      format: JOB_FORMAT,
      name: 'n',
      operators: [
        { id: 'q', kind: 'source.testQueue', params: { queue: 'x' } },
        { id: 'r', kind: 'testRouter', params: { code: 'function route(r, ctx) { ctx.emit(r, "odd"); }' } },
        { id: 'l', kind: 'sink.testLedger', params: { table: 't' } },
        { id: 'l2', kind: 'sink.testLedger', params: { table: 't' } },
        { id: 'q2', kind: 'source.testQueue', params: { queue: 'y' } },
      ],
      edges: [
        { id: 'e1', from: 'q', to: 'r', partition: 'rebalance' },
        { id: 'e2', from: 'r', fromPort: 'errors', to: 'l', partition: 'hash', key: 'k' },
        { id: 'e3', from: 'r', fromPort: 'odd', to: 'l', partition: 'hash', key: 'k' },
        { id: 'e4', from: 'r', fromPort: 'even', to: 'l', partition: 'rebalance' },
        { id: 'e5', from: 'l2', to: 'q2', partition: 'rebalance' },
      ],
    };
    expect(validateJob(job).problems.map((p) => [p.code, p.path])).toEqual([
      ['missing-function', '$.operators[1].params.code'],
      ['unknown-port', '$.edges[3].fromPort'],
      ['keyed-input', '$.edges[3].partition'],
      ['edge-from-sink', '$.edges[4].from'],
      ['edge-to-source', '$.edges[4].to'],
    ]);
    const messages = validateJob(job).problems.map((p) => p.message);
    expect(messages[0]).toBe('operator "r": params.code must define a function named setup');
    expect(messages[1]).toContain('it emits to "out", "errors", "odd"');
    expect(messages[2]).toBe(
      'operator "l" is a sink.testLedger, a keyed operator, so its input edge "e4" must be hash-partitioned (it is rebalance)',
    );
  });

  it("derives the inspector's fields from the params schema", () => {
    expect(kindFields(queueSource).map((f) => [f.name, f.type, f.required])).toEqual([
      ['queue', 'string', true],
      ['batch', 'number', false],
    ]);
  });
});
