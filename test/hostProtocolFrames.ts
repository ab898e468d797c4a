// What a hostile or broken client can send the engine host, as fast-check arbitraries: valid
// requests of every protocol method, the same mutated (wrong types, missing params, huge strings,
// prototype keys, deep nesting), and frames that are no request at all. Every path a frame names
// is inside the sandbox folder, however it is mutated: the host under test really writes files.
import { isAbsolute, join } from 'node:path';
import fc from 'fast-check';
import { HOST_METHODS, type HostMethod } from '../engine/protocol/protocol.js';
import { mutatedJobTexts } from './mutatedJobTexts.js';

/** A WebSocket frame: a text frame holds any string, a binary frame any bytes. */
export type Frame =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: Uint8Array };

/** Stands for the id of the host's latest run; the sender puts it in before sending. */
export const CURRENT_RUN = '\u0001current run\u0001';

/** Keys that reach Object.prototype or are looked up on every object. */
export const POISON_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'toJSON',
  'hasOwnProperty',
  'then',
] as const;

/** A value JSON.stringify cannot write as it must be: written by toFrameText. */
class Deep {
  constructor(
    readonly depth: number,
    readonly open: '[' | '{"a":',
  ) {}
}

type Message = Record<string, unknown>;

export interface FrameSpace {
  /** Everything the host may write to is in here. */
  readonly sandbox: string;
  /** A valid job, as text, whose input is beside it in the sandbox. */
  readonly jobText: string;
  readonly jobPath: string;
  /** Operators of that job, for state pages and breakpoints. */
  readonly operators: readonly string[];
}

/** An object with `key` as an own property, as JSON.parse makes it, even for `__proto__`. */
function withOwn(target: Message, key: string, value: unknown): Message {
  const copy = { ...target };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const deep = fc
  .tuple(fc.integer({ min: 50, max: 100_000 }), fc.constantFrom<Deep['open']>('[', '{"a":'))
  .map(([depth, open]) => new Deep(depth, open));

const hugeString = fc
  .tuple(
    fc.integer({ min: 100_000, max: 1_000_000 }),
    fc.constantFrom('x', 'é', '\u{1F600}', '\\', '"', '\u0000'),
  )
  .map(([length, unit]) => unit.repeat(length));

const oddNumber = fc.constantFrom(
  -1,
  0,
  -0,
  0.5,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 31,
  -(2 ** 53),
  Number.MIN_VALUE,
);

const oddString = fc.oneof(
  fc.constantFrom('', ' ', '\u0000', '\uD800', '\uFFFF', 'null', 'true', '0', '-1', '..', '%00', 'é'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  ...POISON_KEYS.map((key) => fc.constant(key)),
);

/** Any value of the wrong kind, or of the right kind but out of range; never a path outside the sandbox. */
function oddValue(space: FrameSpace): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 3 },
    { arbitrary: oddNumber, weight: 2 },
    { arbitrary: fc.integer(), weight: 1 },
    { arbitrary: fc.double(), weight: 1 },
    { arbitrary: oddString, weight: 3 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
    { arbitrary: hugeString, weight: 1 },
    { arbitrary: deep, weight: 1 },
    { arbitrary: poisoned(space), weight: 2 },
  );
}

/** An object whose own keys are the dangerous ones, each holding what a polluted prototype would give. */
function poisoned(space: FrameSpace): fc.Arbitrary<Message> {
  const payload = {
    polluted: true,
    path: join(space.sandbox, 'polluted.txt'),
    dir: space.sandbox,
    runId: CURRENT_RUN,
    isAdmin: true,
  };
  return fc
    .subarray([...POISON_KEYS], { minLength: 1 })
    .map((keys) => keys.reduce<Message>((object, key) => withOwn(object, key, payload), {}));
}

/** A file name in the sandbox: no separator in it, so no `..` can climb out. */
function sandboxPath(space: FrameSpace): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom('a.txt', 'job', 'events.jsonl', 'out', 'missing', '.pipewright', 'é €.txt'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    )
    .map((name) => {
      const safe = name.replace(/[/\\\0]/g, '_');
      return join(space.sandbox, safe === '.' || safe === '..' || safe === '' ? '_' : safe);
    });
}

/** A mutated value for a key that names a file: anything but an absolute path outside the sandbox. */
function pathValue(space: FrameSpace): fc.Arbitrary<unknown> {
  return fc.oneof(
    sandboxPath(space),
    oddValue(space).map((value) =>
      typeof value === 'string' && isAbsolute(value) ? `relative${value.replace(/[/\\]/g, '_')}` : value,
    ),
  );
}

const PATH_KEYS = new Set(['path', 'dir']);

/** A value for an optional param: absent most of the time, so that the other params get their turn. */
function sometimes<T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.option(value, { nil: undefined, freq: 3 });
}

function runId(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(CURRENT_RUN), weight: 8 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: oddString, weight: 1 },
  );
}

function breakpoints(space: FrameSpace): fc.Arbitrary<unknown[]> {
  const operator = fc.oneof(fc.constantFrom(...space.operators), oddString);
  const id = fc.oneof(fc.constantFrom('b1', 'b2'), oddString);
  return fc.array(
    fc.oneof(
      fc.record({ id, type: fc.constant('operator'), operator }),
      fc.record(
        {
          id,
          type: fc.constant('condition'),
          operator,
          expression: fc.oneof(
            fc.constantFrom('r.user === "a"', 'true', 'r.', 'ctx.key', 'r.n > 2', 'throw 1', '({})'),
            oddString,
          ),
        },
        { requiredKeys: ['id', 'type', 'expression'] },
      ),
      fc.record(
        { id, type: fc.constant('stateKey'), operator, key: fc.constantFrom('a', 'b', '"a"', '') },
        { requiredKeys: ['id', 'type', 'key'] },
      ),
    ),
    { maxLength: 3 },
  );
}

function jobText(space: FrameSpace): fc.Arbitrary<string> {
  return mutatedJobTexts(space.jobText, oddString);
}

/** One valid request of each method (runs of the sandbox's job, files in the sandbox). */
export function validRequest(space: FrameSpace): fc.Arbitrary<Message> {
  const path = sandboxPath(space);
  const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.constant(space.jobText));
  const stateOperator = fc.oneof(
    { arbitrary: fc.constant('count'), weight: 4 },
    fc.constantFrom(...space.operators),
    oddString,
  );
  const stateKey = fc.oneof(fc.constantFrom<unknown>('a', 7, ['a', 1], { k: 'a' }, null, true), oddString);
  const paramsOf: { readonly [M in HostMethod]: fc.Arbitrary<Message> } = {
    'host.info': fc.constant({}),
    'templates.list': fc.constant({}),
    'recent.list': fc.constant({}),
    'file.read': fc.record({ path: fc.oneof(path, fc.constant(space.jobPath)) }),
    'file.write': fc.record({ path, text }),
    'file.list': fc.record({ dir: fc.oneof(fc.constant(space.sandbox), path) }),
    'recent.add': fc.record({ path }),
    'run.start': fc.record(
      {
        text: jobText(space),
        path: fc.oneof({ arbitrary: fc.constant(space.jobPath), weight: 5 }, { arbitrary: path, weight: 1 }),
        mode: fc.constantFrom('run', 'debug'),
        previewSinks: fc.boolean(),
        restore: fc.oneof(fc.constant('latest'), fc.integer({ min: 1, max: 5 })),
        breakpoints: breakpoints(space),
        trusted: fc.boolean(),
      },
      { requiredKeys: ['text', 'path', 'mode', 'previewSinks'] },
    ),
    'run.pause': fc.record({ runId: runId() }),
    'run.resume': fc.record({ runId: runId() }),
    'run.stop': fc.record({ runId: runId() }),
    'run.step': fc.record({ runId: runId() }),
    'run.stepBack': fc.record({ runId: runId() }),
    'run.setBreakpoints': fc.record({ runId: runId(), breakpoints: breakpoints(space) }),
    'run.checkpoints': fc.record({ path: fc.constant(space.jobPath), text: jobText(space) }),
    'job.checkFiles': fc.record({
      path: fc.oneof(fc.constant(space.jobPath), path),
      inputs: fc.array(
        fc.record({
          operator: fc.oneof(fc.constantFrom(...space.operators), oddString),
          index: fc.nat({ max: 5 }),
          param: fc.constantFrom('path', 'file'),
          file: fc.oneof(fc.constantFrom('events.jsonl', 'missing.jsonl', '../x.jsonl'), oddString),
        }),
        { maxLength: 4 },
      ),
    }),
    // Copies into the sandbox only: a name that would leave either folder is refused.
    'job.copyInputs': fc.record({
      from: fc.constant(space.jobPath),
      to: path,
      files: fc.array(fc.oneof(fc.constantFrom('events.jsonl', 'missing.jsonl', '../x'), oddString), {
        maxLength: 3,
      }),
    }),
    'trust.check': fc.record({ path: fc.oneof(fc.constant(space.jobPath), path), text: jobText(space) }),
    'trust.grant': fc.record({ path: fc.oneof(fc.constant(space.jobPath), path), text: jobText(space) }),
    // Kinds without a connection test only: a connector's would wait on a server for each frame.
    'connection.test': fc.record({
      operatorId: fc.oneof(fc.constantFrom(...space.operators), oddString),
      kind: fc.oneof(fc.constantFrom('source.jsonl', 'process', 'sink.jsonl'), oddString),
      params: fc.dictionary(oddString, fc.oneof(oddString, fc.constant('${env:PIPEWRIGHT_FUZZ_UNSET}'))),
      trusted: fc.boolean(),
    }),
    'state.page': fc.record(
      {
        runId: runId(),
        operator: fc.oneof(
          { arbitrary: fc.constant('count'), weight: 4 },
          fc.constantFrom(...space.operators),
          oddString,
        ),
        subtask: fc.integer({ min: 0, max: 2 }),
        limit: fc.integer({ min: 1, max: 1000 }),
        prefix: sometimes(fc.constantFrom('', 'a', '"', 'é')),
        after: sometimes(fc.oneof(fc.constantFrom('', '[]', '["a","count",0]', '{'), oddString)),
        checkpointId: sometimes(fc.integer({ min: 1, max: 5 })),
      },
      { requiredKeys: ['runId', 'operator', 'subtask', 'limit'] },
    ),
    'run.trace': fc.record({
      runId: runId(),
      step: fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 4 },
        fc.integer({ min: 1, max: 1000 }),
      ),
      emitted: fc.oneof(
        { arbitrary: fc.constant(0), weight: 4 },
        fc.integer({ min: 0, max: 3 }),
        fc.constant('received'),
      ),
    }),
    'state.checkpoints': fc.record({ runId: runId() }),
    'state.key': fc.record(
      {
        runId: runId(),
        operator: stateOperator,
        key: fc.oneof(fc.constantFrom('a', '7', '"7"', '[1,"a"]', '', '{'), oddString),
        checkpointId: sometimes(fc.integer({ min: 1, max: 5 })),
      },
      { requiredKeys: ['runId', 'operator', 'key'] },
    ),
    'state.elements': fc.record(
      {
        runId: runId(),
        operator: stateOperator,
        key: stateKey,
        state: fc.oneof(fc.constantFrom('count', 'seen'), oddString),
        type: fc.constantFrom('map', 'list', 'value'),
        after: sometimes(fc.oneof(fc.constantFrom('"a"', '[]', '{'), oddString)),
        limit: fc.integer({ min: 0, max: 1001 }),
        checkpointId: sometimes(fc.integer({ min: 1, max: 5 })),
      },
      { requiredKeys: ['runId', 'operator', 'key', 'state', 'type', 'limit'] },
    ),
    'state.compare': fc.record(
      {
        runId: runId(),
        operator: stateOperator,
        key: stateKey,
        from: fc.oneof(fc.constant('live'), fc.integer({ min: 0, max: 5 })),
        to: fc.oneof(fc.constant('live'), fc.integer({ min: 1, max: 5 })),
        state: sometimes(fc.constantFrom('count', 'seen')),
        type: sometimes(fc.constantFrom('value', 'map', 'list')),
        after: sometimes(fc.oneof(fc.constantFrom('"a"', '[]'), oddString)),
        limit: fc.integer({ min: 1, max: 1000 }),
      },
      { requiredKeys: ['runId', 'operator', 'key', 'from', 'to', 'limit'] },
    ),
  };
  // Runs are what makes the run rows reachable at all, so starting and stopping them is common.
  const weightOf = (method: HostMethod): number =>
    method === 'run.start'
      ? 6
      : ['run.stop', 'run.step'].includes(method)
        ? 4
        : ['state.page', 'run.trace', 'state.key', 'state.compare'].includes(method)
          ? 3
          : 1;
  return fc.oneof(
    ...HOST_METHODS.map((method) => ({
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 1_000_000 }), paramsOf[method])
        .map(([id, params]): Message => ({ type: 'request', id, method, params })),
      weight: weightOf(method),
    })),
  );
}

type Mutation = (message: Message) => Message;

function keyOf(object: unknown, pick: number): string | undefined {
  if (typeof object !== 'object' || object === null) return undefined;
  const keys = Object.keys(object);
  return keys.length === 0 ? undefined : keys[pick % keys.length];
}

function mutation(space: FrameSpace): fc.Arbitrary<Mutation> {
  const value = oddValue(space);
  const envelopeKey = fc.constantFrom('type', 'id', 'method', 'params');
  const paramsMutation =
    (change: (params: Message) => Message) =>
    (message: Message): Message => {
      const params = message.params;
      if (typeof params !== 'object' || params === null || Array.isArray(params)) return message;
      return { ...message, params: change(params as Message) };
    };
  return fc.oneof(
    // A param missing.
    fc.nat().map((pick) =>
      paramsMutation((params) => {
        const key = keyOf(params, pick);
        if (key === undefined) return params;
        const { [key]: _, ...rest } = params;
        return rest;
      }),
    ),
    // A param of the wrong type or out of range.
    fc.tuple(fc.nat(), value, pathValue(space)).map(([pick, odd, oddPath]) =>
      paramsMutation((params) => {
        const key = keyOf(params, pick);
        if (key === undefined) return params;
        return withOwn(params, key, PATH_KEYS.has(key) ? oddPath : odd);
      }),
    ),
    // A param the method does not have, dangerous keys first.
    fc
      .tuple(fc.oneof(fc.constantFrom(...POISON_KEYS), oddString), value)
      .map(([key, odd]) =>
        paramsMutation((params) => withOwn(params, key, PATH_KEYS.has(key) ? join(space.sandbox, 'x') : odd)),
      ),
    // The envelope broken: a field of the wrong kind or missing, params not an object.
    fc.tuple(envelopeKey, value).map(
      ([key, odd]) =>
        (message: Message) =>
          withOwn(message, key, odd),
    ),
    envelopeKey.map((key) => (message: Message) => {
      const { [key]: _, ...rest } = message;
      return rest;
    }),
    // A method of another case, a prefix of one, or a key every object has.
    fc
      .constantFrom('HOST.INFO', 'file.', 'run.start ', ...POISON_KEYS, '__defineGetter__')
      .map((method) => (message: Message) => ({ ...message, method })),
    // Dangerous keys on the envelope itself.
    fc.tuple(fc.constantFrom(...POISON_KEYS), poisoned(space)).map(
      ([key, odd]) =>
        (message: Message) =>
          withOwn(message, key, odd),
    ),
  );
}

/** JSON text for a message, Deep values written out as the deep nesting they stand for. */
export function toFrameText(message: unknown): string {
  const deeps: Deep[] = [];
  const text = JSON.stringify(message, (_key, value: unknown) => {
    if (!(value instanceof Deep)) return value;
    deeps.push(value);
    return `\u0002deep${deeps.length - 1}\u0002`;
  });
  return deeps.reduce((out, value, index) => {
    const close = value.open === '[' ? ']' : '}';
    return out.replace(
      `"\\u0002deep${index}\\u0002"`,
      () => value.open.repeat(value.depth) + close.repeat(value.depth),
    );
  }, text ?? 'undefined');
}

/** Requests mutated one to three times: what the host must refuse, each with a clear error. */
export function mutatedRequest(space: FrameSpace): fc.Arbitrary<Message> {
  return fc
    .tuple(validRequest(space), fc.array(mutation(space), { minLength: 1, maxLength: 3 }))
    .map(([message, mutations]) => mutations.reduce((m, mutate) => mutate(m), message));
}

/** What the fuzz sends: a frame as it is, or a message to write as a text frame. */
export type Generated = Frame | { readonly kind: 'message'; readonly message: unknown };

const asMessage = (message: unknown): Generated => ({ kind: 'message', message });

/** Every kind of frame, valid requests a third of the time so that runs start and the run rows get past their first check. */
export function frames(space: FrameSpace): fc.Arbitrary<Generated> {
  const validText = validRequest(space).map(toFrameText);
  return fc.oneof(
    { arbitrary: validRequest(space).map(asMessage), weight: 8 },
    { arbitrary: mutatedRequest(space).map(asMessage), weight: 12 },
    // Text that is not JSON, or not whole.
    {
      arbitrary: fc
        .oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          validText.chain((text) => fc.nat(text.length).map((n) => text.slice(0, n))),
          fc.constantFrom('', '{', '}', 'null', '[]', '"request"', '{"type":"request"}', 'NaN', '\uFEFF{}'),
        )
        .map((text): Frame => ({ kind: 'text', text })),
      weight: 2,
    },
    // JSON that is no request.
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map(asMessage), weight: 1 },
    // Binary frames: random bytes, or a valid request sent as binary.
    {
      arbitrary: fc
        .oneof(
          fc.uint8Array({ maxLength: 300 }),
          validText.map((text) => new Uint8Array(Buffer.from(text))),
        )
        .map((bytes): Frame => ({ kind: 'binary', bytes })),
      weight: 2,
    },
  );
}

/** The frame to send, with the latest run's id where CURRENT_RUN stands. */
export function asFrame(generated: Generated, currentRun: string): Frame {
  if (generated.kind !== 'message') return generated;
  const placeholder = JSON.stringify(CURRENT_RUN).slice(1, -1);
  return { kind: 'text', text: toFrameText(generated.message).replaceAll(placeholder, currentRun) };
}
