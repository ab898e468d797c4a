import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  edgeSchema,
  getKind,
  kindFields,
  OPERATOR_KINDS,
  operatorSchema,
  paramsSchemas,
  settingsSchema,
} from '../../engine/graph/index.js';
import {
  describeField,
  describeFields,
  type FieldDescriptor,
  fieldLabel,
  formatFieldValue,
  numberWords,
  parseFieldText,
  sameJson,
  splitList,
} from './schemaFields';

const byName = (fields: FieldDescriptor[], name: string): FieldDescriptor => {
  const field = fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`no field ${name}`);
  return field;
};

describe('fieldLabel', () => {
  it('puts a camelCase key into words and a trailing Ms into a unit', () => {
    expect(fieldLabel('path')).toBe('Path');
    expect(fieldLabel('timestampField')).toBe('Timestamp field');
    expect(fieldLabel('maxOutOfOrdernessMs')).toBe('Max out of orderness (ms)');
    expect(fieldLabel('checkpointIntervalMs')).toBe('Checkpoint interval (ms)');
    expect(fieldLabel('ratePerSec')).toBe('Rate per sec');
  });
});

describe('describeFields on the engine schemas', () => {
  it('reads source.jsonl: a required path with its description, optional field path and milliseconds', () => {
    const fields = describeFields(paramsSchemas['source.jsonl']);
    expect(fields.map((f) => f.name)).toEqual([
      'path',
      'timestampField',
      'maxOutOfOrdernessMs',
      'idleTimeoutMs',
      'onBadTimestamp',
    ]);
    expect(fields[0]).toMatchObject({ type: 'string', required: true, minLength: 1 });
    expect(fields[0]!.description).toMatch(/relative one resolves/);
    // The description sits on the type inside .optional(): it is still found.
    expect(fields[1]).toMatchObject({ type: 'string', required: false });
    expect(fields[1]!.description).toMatch(/dotted field path/);
    expect(fields[2]).toMatchObject({ type: 'number', required: false, integer: true, min: 0 });
    expect(fields[4]).toMatchObject({ type: 'enum', required: false, options: ['fail', 'skip'] });
  });

  it('reads source.generator: code, and numbers with their bounds', () => {
    const fields = describeFields(paramsSchemas['source.generator']);
    expect(byName(fields, 'code')).toMatchObject({ type: 'code', required: true });
    expect(byName(fields, 'count')).toMatchObject({ type: 'number', integer: true, min: 0, required: false });
    // positive() on a non-integer is an exclusive bound.
    expect(byName(fields, 'ratePerSec')).toMatchObject({
      type: 'number',
      integer: false,
      min: 0,
      minExclusive: true,
    });
    const seed = byName(fields, 'seed');
    expect(seed).toMatchObject({ type: 'number', integer: true });
    expect(seed.type === 'number' && seed.min).toBeFalsy();
  });

  it('reads window: required enums with their options, positive whole numbers as at least 1', () => {
    const fields = describeFields(paramsSchemas.window);
    expect(byName(fields, 'type')).toMatchObject({
      type: 'enum',
      required: true,
      options: ['tumbling', 'sliding', 'session'],
    });
    expect(byName(fields, 'aggregate')).toMatchObject({
      type: 'enum',
      options: ['count', 'sum', 'min', 'max', 'avg', 'code'],
    });
    expect(byName(fields, 'sizeMs')).toMatchObject({
      type: 'number',
      integer: true,
      min: 1,
      minExclusive: false,
    });
  });

  it('reads transaction: a required list of strings with at least one item', () => {
    const fields = describeFields(paramsSchemas.transaction);
    expect(byName(fields, 'tables')).toMatchObject({ type: 'stringList', required: true, minItems: 1 });
  });

  it('reads the settings: defaults, descriptions on the default wrapper, bounds', () => {
    const fields = describeFields(settingsSchema);
    expect(fields.map((f) => f.name)).toEqual([
      'maxParallelism',
      'stateBackend',
      'checkpointIntervalMs',
      'checkpointsRetained',
      'callTimeoutMs',
      'threads',
    ]);
    // Optional, without a default: absent means no limit.
    expect(byName(fields, 'callTimeoutMs')).toMatchObject({
      type: 'number',
      required: false,
      integer: true,
      min: 1,
    });
    expect(byName(fields, 'callTimeoutMs').defaultValue).toBeUndefined();
    expect(byName(fields, 'maxParallelism')).toMatchObject({
      type: 'number',
      required: false,
      defaultValue: 128,
      integer: true,
      min: 1,
      max: 32768,
    });
    expect(byName(fields, 'maxParallelism').description).toMatch(/key groups/);
    expect(byName(fields, 'stateBackend')).toMatchObject({
      type: 'enum',
      options: ['level', 'memory'],
      defaultValue: 'level',
    });
    expect(byName(fields, 'checkpointIntervalMs')).toMatchObject({ defaultValue: 1000, min: 0 });
    expect(byName(fields, 'checkpointIntervalMs').description).toBe('0 turns checkpoints off.');
  });

  it('reads parallelism from the operator schema', () => {
    const parallelism = describeField('parallelism', operatorSchema.options[0].shape.parallelism);
    expect(parallelism).toMatchObject({
      type: 'number',
      integer: true,
      min: 1,
      required: false,
      defaultValue: 1,
    });
  });

  it('describes every field of every kind as something an input can edit', () => {
    for (const kind of OPERATOR_KINDS) {
      for (const field of describeFields(paramsSchemas[kind]))
        expect(field.type, `${kind}.${field.name}`).not.toBe('other');
    }
  });

  it('falls back to "other" for shapes it has no input for, and booleans are booleans', () => {
    const schema = z.object({
      on: z.boolean().default(false),
      nested: z.object({ a: z.string() }).optional(),
    });
    const [on, nested] = describeFields(schema);
    expect(on).toMatchObject({ type: 'boolean', required: false, defaultValue: false });
    expect(nested).toMatchObject({ type: 'other', required: false });
  });

  it('prefers a description given to the optional wrapper', () => {
    const field = describeField('key', z.string().describe('inner').optional().describe('outer'));
    expect(field.description).toBe('outer');
  });
});

describe('numberWords', () => {
  it('says the range in words', () => {
    expect(numberWords({ integer: true, min: 0 })).toBe('a whole number, at least 0');
    expect(numberWords({ integer: false, min: 0, minExclusive: true })).toBe('a number, more than 0');
    expect(numberWords({ integer: true, min: 1, max: 32768 })).toBe(
      'a whole number, at least 1, at most 32768',
    );
    expect(numberWords({ integer: true, min: 1, max: Number.MAX_SAFE_INTEGER })).toBe(
      'a whole number, at least 1',
    );
  });
});

describe('parseFieldText and formatFieldValue', () => {
  const [path, timestampField, maxOutOfOrdernessMs] = describeFields(paramsSchemas['source.jsonl']) as [
    FieldDescriptor,
    FieldDescriptor,
    FieldDescriptor,
  ];
  const tables = describeFields(paramsSchemas.transaction)[0]!;
  const code = describeFields(paramsSchemas.map)[0]!;

  it('parses numbers, refuses text that is no number, and treats empty as absent', () => {
    expect(parseFieldText(maxOutOfOrdernessMs, ' 250 ')).toEqual({ ok: true, value: 250 });
    expect(parseFieldText(maxOutOfOrdernessMs, '1e3')).toEqual({ ok: true, value: 1000 });
    expect(parseFieldText(maxOutOfOrdernessMs, '')).toEqual({ ok: true, value: undefined });
    const bad = parseFieldText(maxOutOfOrdernessMs, '12a');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toBe('"12a" is not a number');
    expect(parseFieldText(maxOutOfOrdernessMs, 'Infinity').ok).toBe(false);
  });

  it('writes out-of-range numbers: the validator says what is wrong with them', () => {
    expect(parseFieldText(maxOutOfOrdernessMs, '-5')).toEqual({ ok: true, value: -5 });
    expect(parseFieldText(maxOutOfOrdernessMs, '1.5')).toEqual({ ok: true, value: 1.5 });
  });

  it('keeps an emptied required string (so "must not be empty" is reported) and removes an optional one', () => {
    expect(parseFieldText(path, '')).toEqual({ ok: true, value: '' });
    expect(parseFieldText(timestampField, '')).toEqual({ ok: true, value: undefined });
    expect(parseFieldText(timestampField, 'ts')).toEqual({ ok: true, value: 'ts' });
    expect(parseFieldText(code, '')).toEqual({ ok: true, value: '' });
  });

  it('splits lists on commas', () => {
    expect(splitList(' a, b ,, c ')).toEqual(['a', 'b', 'c']);
    expect(parseFieldText(tables, 'accounts, owners')).toEqual({ ok: true, value: ['accounts', 'owners'] });
    expect(parseFieldText(tables, '')).toEqual({ ok: true, value: [] });
    expect(formatFieldValue(tables, ['accounts', 'owners'])).toBe('accounts, owners');
  });

  it('shows values of the wrong type as written', () => {
    expect(formatFieldValue(maxOutOfOrdernessMs, 5)).toBe('5');
    expect(formatFieldValue(maxOutOfOrdernessMs, 'soon')).toBe('soon');
    expect(formatFieldValue(tables, [1, 2])).toBe('[1,2]');
    expect(formatFieldValue(path, undefined)).toBe('');
  });

  it('a value survives format then parse', () => {
    for (const [field, value] of [
      [maxOutOfOrdernessMs, 42],
      [tables, ['a', 'b']],
      [path, 'in.jsonl'],
    ] as const) {
      const parsed = parseFieldText(field, formatFieldValue(field, value as never));
      expect(parsed.ok && sameJson(parsed.value, value as never)).toBe(true);
    }
  });
});

describe('describeFields on the edge schema', () => {
  it('gives the partitions, the key and the feedback flag with their descriptions', () => {
    const fields = describeFields(edgeSchema);
    expect(byName(fields, 'partition')).toMatchObject({
      type: 'enum',
      required: true,
      options: ['forward', 'rebalance', 'hash', 'broadcast'],
    });
    expect(byName(fields, 'key').description).toMatch(/key of a hash edge/);
    expect(byName(fields, 'feedback')).toMatchObject({
      type: 'boolean',
      required: false,
      defaultValue: false,
    });
    expect(byName(fields, 'fromPort')).toMatchObject({ type: 'string', defaultValue: 'out' });
  });
});

describe('the connector kinds as forms', () => {
  const fieldsOf = (kind: keyof typeof paramsSchemas) => describeFields(paramsSchemas[kind]);

  it('gives each param an input of its shape: lists, choices, flags, numbers', () => {
    const kafka = fieldsOf('source.kafka');
    expect(byName(kafka, 'bootstrapServers')).toMatchObject({ type: 'string', required: true });
    expect(byName(kafka, 'topics')).toMatchObject({ type: 'stringList', minItems: 1, required: false });
    expect(byName(kafka, 'startingOffsets')).toMatchObject({
      type: 'choice',
      options: ['earliest', 'latest', 'committed'],
      required: false,
    });
    expect(byName(kafka, 'format')).toMatchObject({ type: 'enum', options: ['json', 'string'] });
    expect(byName(kafka, 'includeMetadata')).toMatchObject({ type: 'boolean' });
    expect(byName(kafka, 'retryTimeoutMs')).toMatchObject({ type: 'number', integer: true, min: 0 });
    expect(byName(fieldsOf('sink.postgres'), 'keyColumns')).toMatchObject({
      type: 'stringList',
      minItems: 1,
    });
    expect(byName(fieldsOf('sink.postgres'), 'mode')).toMatchObject({
      type: 'enum',
      options: ['upsert', 'append'],
      required: true,
    });
    expect(byName(fieldsOf('source.postgres'), 'snapshot')).toMatchObject({ type: 'boolean' });
    expect(byName(fieldsOf('sink.kafka'), 'deliveryGuarantee')).toMatchObject({
      type: 'enum',
      options: ['exactly-once', 'at-least-once'],
    });
  });

  it("shows a PostgreSQL source's snapshot checked while absent, as absent means true", () => {
    const snapshot = kindFields(getKind('source.postgres')!).find((f) => f.name === 'snapshot');
    // Without the default, the box showed unchecked and unchecking it wrote nothing: no way to false.
    expect(snapshot).toMatchObject({ type: 'boolean', required: false, defaultValue: true });
  });

  it('reads a choice field as a word typed bare or any other value as JSON', () => {
    const offsets = byName(fieldsOf('source.kafka'), 'startingOffsets');
    expect(parseFieldText(offsets, ' latest ')).toEqual({ ok: true, value: 'latest' });
    expect(parseFieldText(offsets, '{ "timestamp": 1700000000000 }')).toEqual({
      ok: true,
      value: { timestamp: 1700000000000 },
    });
    expect(parseFieldText(offsets, '"earliest"')).toEqual({ ok: true, value: 'earliest' });
    // A number is a number: the validator then says which values the param takes.
    expect(parseFieldText(offsets, '12')).toEqual({ ok: true, value: 12 });
    expect(parseFieldText(offsets, '')).toEqual({ ok: true, value: undefined });
    expect(parseFieldText(offsets, '{ "timestamp": ')).toEqual({
      ok: false,
      message: 'neither one of earliest, latest, committed nor valid JSON',
    });
    for (const value of ['committed', { timestamp: 5 }]) {
      const parsed = parseFieldText(offsets, formatFieldValue(offsets, value));
      expect(parsed.ok && sameJson(parsed.value, value)).toBe(true);
    }
  });
});
