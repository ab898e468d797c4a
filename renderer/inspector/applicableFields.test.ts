import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineKind, getKind, kindFields } from '../../engine/graph/index.js';
import { formFields, paramPatch } from './applicableFields';

// A window-like kind of the test's own, so that these rules are checked whatever the shipped
// descriptors say; the shipped ones are checked below.
const shaped = defineKind({
  kind: 'test.shaped',
  role: 'transform',
  params: z.strictObject({
    type: z.enum(['tumbling', 'sliding', 'session']),
    sizeMs: z.number().optional(),
    slideMs: z.number().optional(),
    gapMs: z.number().optional(),
    timeField: z.string().optional(),
    boundMs: z.number().optional(),
  }),
  ports: { inputs: true, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Shaped',
    group: 'transform',
    description: 'A test kind.',
    idBase: 'shaped',
    defaultParams: { type: 'tumbling' },
    icon: 'M2 2h12v12H2z',
    fieldConditions: {
      sizeMs: { field: 'type', oneOf: ['tumbling', 'sliding'] },
      slideMs: { field: 'type', oneOf: ['sliding'] },
      gapMs: { field: 'type', oneOf: ['session'] },
      boundMs: { field: 'timeField' },
    },
  },
});

const shown = (params: Record<string, unknown>) =>
  formFields(shaped, kindFields(shaped), params).map(({ field, note }) =>
    note === undefined ? field.name : `${field.name}: ${note}`,
  );

describe('the fields a form shows', () => {
  it('leaves out the fields that do not apply to the chosen values', () => {
    expect(shown({ type: 'tumbling' })).toEqual(['type', 'sizeMs', 'timeField']);
    expect(shown({ type: 'sliding' })).toEqual(['type', 'sizeMs', 'slideMs', 'timeField']);
    expect(shown({ type: 'session' })).toEqual(['type', 'gapMs', 'timeField']);
    // Before a type is chosen, nothing that depends on it.
    expect(shown({})).toEqual(['type', 'timeField']);
  });

  it('shows a field that depends on another being set once it is set', () => {
    expect(shown({ type: 'session', timeField: 'ts' })).toEqual(['type', 'gapMs', 'timeField', 'boundMs']);
    expect(shown({ type: 'session', timeField: '' })).toEqual(['type', 'gapMs', 'timeField']);
  });

  it('keeps a field that does not apply but holds a value, saying why it does nothing', () => {
    expect(shown({ type: 'session', slideMs: 5, boundMs: 1 })).toEqual([
      'type',
      'slideMs: Used only when Type is sliding; clear it or change Type.',
      'gapMs',
      'timeField',
      'boundMs: Used only when Time field is set; clear it or set Time field.',
    ]);
    expect(shown({ type: 'session', sizeMs: 5 })[1]).toBe(
      'sizeMs: Used only when Type is tumbling or sliding; clear it or change Type.',
    );
  });
});

describe('a change to a param', () => {
  it('removes the values of the fields it stops applying to, in the same edit', () => {
    const sliding = { type: 'sliding', sizeMs: 10, slideMs: 5, timeField: 'ts', boundMs: 3 };
    expect(paramPatch(shaped, sliding, 'type', 'session')).toEqual({
      type: 'session',
      sizeMs: undefined,
      slideMs: undefined,
    });
    expect(paramPatch(shaped, sliding, 'type', 'tumbling')).toEqual({ type: 'tumbling', slideMs: undefined });
    expect(paramPatch(shaped, sliding, 'timeField', undefined)).toEqual({
      timeField: undefined,
      boundMs: undefined,
    });
  });

  it('leaves alone what still applies, what was not set, and a value kept from before', () => {
    expect(paramPatch(shaped, { type: 'tumbling', sizeMs: 10 }, 'type', 'sliding')).toEqual({
      type: 'sliding',
    });
    expect(paramPatch(shaped, { type: 'session' }, 'type', 'tumbling')).toEqual({ type: 'tumbling' });
    expect(paramPatch(shaped, { type: 'sliding', sizeMs: 10 }, 'sizeMs', 20)).toEqual({ sizeMs: 20 });
    // A value that did nothing already is the user's to clear: a change elsewhere does not take it.
    expect(paramPatch(shaped, { type: 'session', slideMs: 5 }, 'type', 'tumbling')).toEqual({
      type: 'tumbling',
    });
  });
});

describe('the JSON Lines source', () => {
  const jsonl = getKind('source.jsonl');
  const names = (params: Record<string, unknown>) =>
    formFields(jsonl, kindFields(jsonl), params).map(({ field }) => field.name);

  it('asks for the watermark settings only once records have a timestamp field', () => {
    expect(names({ path: 'in.jsonl' })).toEqual(['path', 'timestampField']);
    const timed = names({ path: 'in.jsonl', timestampField: 'ts' });
    expect(timed.slice(0, 3)).toEqual(['path', 'timestampField', 'maxOutOfOrdernessMs']);
    expect(timed).toEqual(kindFields(jsonl).map((f) => f.name));
  });
});

describe('the window', () => {
  const window = getKind('window');
  const names = (params: Record<string, unknown>) =>
    formFields(window, kindFields(window), params).map(({ field }) => field.name);

  it('asks for a size and offset, a slide, or a gap, as its type needs; a field for sum, code for "code"', () => {
    expect(names({ type: 'tumbling', aggregate: 'count' })).toEqual([
      'type',
      'sizeMs',
      'offsetMs',
      'aggregate',
      'allowedLatenessMs',
    ]);
    expect(names({ type: 'sliding', aggregate: 'sum' })).toEqual([
      'type',
      'sizeMs',
      'slideMs',
      'offsetMs',
      'aggregate',
      'field',
      'allowedLatenessMs',
    ]);
    expect(names({ type: 'session', aggregate: 'code' })).toEqual([
      'type',
      'gapMs',
      'aggregate',
      'code',
      'allowedLatenessMs',
    ]);
  });

  it('drops the size and offset of a window made a session', () => {
    expect(paramPatch(window, { type: 'tumbling', sizeMs: 1000, offsetMs: 5 }, 'type', 'session')).toEqual({
      type: 'session',
      sizeMs: undefined,
      offsetMs: undefined,
    });
  });
});

describe('the transaction', () => {
  const transaction = getKind('transaction');

  it('asks for its tables as a list of names and for its code, which must define keys and transact', () => {
    const fields = formFields(transaction, kindFields(transaction), {});
    expect(fields.map(({ field }) => [field.name, field.type, field.required])).toEqual([
      ['tables', 'stringList', true],
      ['code', 'code', true],
    ]);
    expect(fields[0]!.field.description).toMatch(/tables this operator owns/);
    // The hint above the code editor: both functions, and the tx calls.
    const signature = transaction.userCode!.signature;
    expect(signature).toMatch(/^function keys\(record\)/);
    expect(signature).toContain('function transact(record, tx)');
    for (const call of ['tx.get(', 'tx.set(', 'tx.delete(', 'tx.abort(', 'tx.emit('])
      expect(signature).toContain(call);
  });

  it('changes only the tables when the tables are edited', () => {
    expect(paramPatch(transaction, { tables: ['a'], code: 'x' }, 'tables', ['a', 'b'])).toEqual({
      tables: ['a', 'b'],
    });
  });
});

describe('the PostgreSQL sink', () => {
  const sink = getKind('sink.postgres');
  const fields = (params: Record<string, unknown>) =>
    formFields(sink, kindFields(sink), params).map(
      ({ field }) => `${field.name}${field.required ? '' : '?'}`,
    );

  it('asks for key columns, required, in upsert mode only', () => {
    expect(fields({ mode: 'upsert' })).toEqual([
      'connection',
      'table',
      'mode',
      'keyColumns',
      'retryTimeoutMs?',
    ]);
    expect(fields({ mode: 'append' })).toEqual(['connection', 'table', 'mode', 'retryTimeoutMs?']);
  });
});
