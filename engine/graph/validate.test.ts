import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Problem } from './problem.js';
import { JOB_FORMAT, OPERATOR_KINDS } from './schema.js';
import {
  formatJsonPath,
  PROBLEM_CODES,
  parseJobText,
  scanEmittedPorts,
  validateJob,
  validateJobText,
} from './validate.js';

type Json = Record<string, unknown>;

const source = (id: string, extra: Json = {}): Json => ({
  id,
  kind: 'source.jsonl',
  params: { path: `${id}.jsonl` },
  ...extra,
});
const processOp = (
  id: string,
  code = 'function process(record, ctx) { ctx.emit(record); }',
  extra: Json = {},
) => ({
  id,
  kind: 'process',
  params: { code },
  ...extra,
});
const mapOp = (id: string, extra: Json = {}): Json => ({
  id,
  kind: 'map',
  params: { code: 'function map(record) { return record; }' },
  ...extra,
});
const sink = (id: string, extra: Json = {}): Json => ({
  id,
  kind: 'sink.jsonl',
  params: { path: `${id}.jsonl` },
  ...extra,
});
const edge = (id: string, from: string, to: string, extra: Json = {}): Json => ({
  id,
  from,
  to,
  partition: 'rebalance',
  ...extra,
});

function job(operators: unknown[], edges: unknown[] = [], extra: Json = {}): Json {
  return { format: JOB_FORMAT, name: 'test', operators, edges, ...extra };
}

/** The one problem with this code; fails when there is none or several. */
function only(problems: readonly Problem[], code: string): Problem {
  const matching = problems.filter((p) => p.code === code);
  expect(matching, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return matching[0]!;
}

function expectNames(problem: Problem, ...ids: string[]): void {
  for (const id of ids) expect(problem.message).toContain(`"${id}"`);
}

const pipeline = () =>
  job(
    [source('events'), processOp('owners'), sink('out')],
    [edge('e1', 'events', 'owners'), edge('e2', 'owners', 'out')],
  );

describe('a valid job', () => {
  it('returns the job with every default filled in and no problems', () => {
    const result = validateJob(pipeline());
    expect(result.problems).toEqual([]);
    expect(result.job).toBeDefined();
    const parsed = result.job!;
    expect(parsed.settings).toEqual({
      maxParallelism: 128,
      stateBackend: 'level',
      checkpointIntervalMs: 1000,
      checkpointsRetained: 3,
    });
    expect(parsed.operators.map((op) => op.parallelism)).toEqual([1, 1, 1]);
    expect(parsed.edges[0]).toMatchObject({ fromPort: 'out', feedback: false });
  });

  it('accepts the example of the contract', () => {
    const example = job(
      [
        source('events', { params: { path: 'events.jsonl', timestampField: 'ts', maxOutOfOrdernessMs: 0 } }),
        processOp(
          'owners',
          `function process(record, ctx) {
             const owner = ctx.state.value('owner');
             if (record.to) ctx.emit({ to: record.to, item: record.item }, "transfer");
             owner.set(record.to);
             ctx.emit(record);
           }`,
          { parallelism: 4 },
        ),
        sink('out'),
      ],
      [
        edge('e1', 'events', 'owners', { partition: 'hash', key: 'owner' }),
        edge('e2', 'owners', 'owners', {
          fromPort: 'transfer',
          partition: 'hash',
          key: 'to',
          feedback: true,
        }),
        edge('e3', 'owners', 'out', { partition: 'rebalance' }),
      ],
      {
        description: 'optional free text',
        settings: {
          maxParallelism: 128,
          stateBackend: 'level',
          checkpointIntervalMs: 1000,
          checkpointsRetained: 3,
        },
        editor: { positions: { events: { x: 0, y: 0 } }, viewport: { zoom: 1 } },
      },
    );
    const result = validateJob(example);
    expect(result.problems).toEqual([]);
    expect(result.job?.edges[1]).toMatchObject({ feedback: true, fromPort: 'transfer' });
  });

  it('does not mind an operator with no inputs that is not a source', () => {
    const result = validateJob(job([processOp('lonely'), mapOp('m')], [edge('e1', 'lonely', 'm')]));
    expect(result.problems).toEqual([]);
  });

  it('accepts a feedback edge that closes no cycle', () => {
    const result = validateJob(
      job(
        [source('s'), processOp('p')],
        [edge('e1', 's', 'p', { partition: 'hash', key: 'k', feedback: true })],
      ),
    );
    expect(result.problems).toEqual([]);
    expect(result.job).toBeDefined();
  });
});

describe('format', () => {
  it('refuses a file without a format, and reports nothing else', () => {
    const { job: parsed, problems } = validateJob({ name: 'x', operators: 'nonsense', edges: [{}] });
    expect(parsed).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'format', path: '$.format' });
    expect(problems[0]!.message).toContain('not a Pipewright job file');
  });

  it('names an unsupported version of the format', () => {
    const { problems } = validateJob({ ...pipeline(), format: 'pipewright.job/2', operators: 7 });
    expect(problems).toEqual([
      {
        code: 'format',
        message: 'format pipewright.job/2 is not supported by this version (it reads pipewright.job/1)',
        path: '$.format',
        ids: [],
      },
    ]);
  });

  it('refuses another kind of file', () => {
    const { problems } = validateJob({ format: 'something/else' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'format', path: '$.format' });
    expect(problems[0]!.message).toContain('"something/else"');
  });

  it.each([[null], [[]], ['pipewright.job/1'], [42]])('refuses %j, which is not an object', (value) => {
    const { problems } = validateJob(value);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'format', path: '$' });
    expect(problems[0]!.message).toMatch(/^not a Pipewright job file/);
  });
});

describe('malformed JSON', () => {
  it('gives one problem with the line and column of the fault', () => {
    const text = '{\n  "format": "pipewright.job/1",\n  "name": "x"\n  "operators": []\n}';
    const { value, problems } = parseJobText(text);
    expect(value).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'malformed-json', path: '$', ids: [], line: 4, column: 3 });
    expect(problems[0]!.message).toContain('line 4, column 3');
  });

  it.each([
    ['{"a": 1,}', 1, 9, 'trailing comma'],
    ['[1, 2,\n]', 2, 1, 'trailing comma'],
    ["{'a': 1}", 1, 2, 'property name'],
    ['{"a": "line\nbreak"}', 1, 12, 'line break'],
    ['{"a": tru}', 1, 7, 'expected a value'],
    ['{"a": 01}', 1, 8, 'start with 0'],
    ['{"a": "\\u12"}', 1, 12, 'four hex digits'],
    ['{"a": 1} {}', 1, 10, 'after the end'],
    ['{"a": "\\q"}', 1, 9, 'escape'],
    ['{"a": "open', 1, 12, 'ends inside a string (it opens at line 1, column 7)'],
    ['\r\n\r\n  }', 3, 3, 'expected a value'],
  ])('locates the fault in %j', (text, line, column, words) => {
    const { problems } = parseJobText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'malformed-json', line, column });
    expect(problems[0]!.message).toContain(words);
  });

  it('says when the file is empty', () => {
    const { problems } = parseJobText('  \n');
    expect(problems[0]).toMatchObject({ code: 'malformed-json' });
    expect(problems[0]!.message).toContain('empty');
  });

  it('reads a file that starts with a byte order mark', () => {
    expect(parseJobText(`\uFEFF${JSON.stringify(pipeline())}`)).toEqual({ value: pipeline(), problems: [] });
  });

  it('validateJobText parses and validates', () => {
    expect(validateJobText('{').problems.map((p) => p.code)).toEqual(['malformed-json']);
    expect(validateJobText(JSON.stringify(pipeline())).job?.name).toBe('test');
    expect(validateJobText('{"format": "pipewright.job/1"}').problems.map((p) => p.code)).toEqual([
      'required',
      'required',
    ]);
  });
});

describe('schema problems, in words', () => {
  it('a missing parameter names the operator and the field, without zod jargon', () => {
    const { problems } = validateJob(job([{ id: 'owners', kind: 'process', params: {} }]));
    const problem = only(problems, 'required');
    expect(problem).toEqual({
      code: 'required',
      message: 'operator "owners": params.code is required (a string)',
      path: '$.operators[0].params.code',
      ids: ['owners'],
    });
  });

  it('a wrong type says what was expected and what was found', () => {
    const { problems } = validateJob(job([source('s', { parallelism: '4' })]));
    const problem = only(problems, 'wrong-type');
    expect(problem).toMatchObject({ path: '$.operators[0].parallelism', ids: ['s'] });
    expect(problem.message).toBe('operator "s": parallelism must be a number, not "4"');
  });

  it('an out-of-range value gives the limit and the value', () => {
    const { problems } = validateJob(job([source('s', { parallelism: 0 })]));
    expect(only(problems, 'invalid-value')).toMatchObject({
      path: '$.operators[0].parallelism',
      message: 'operator "s": parallelism must be at least 1 (got 0)',
    });
  });

  it('an unknown field is reported with a suggestion', () => {
    const { problems } = validateJob(job([source('s', { parallelsm: 2 })], [], { setings: {} }));
    const fields = problems.filter((p) => p.code === 'unknown-field');
    expect(fields.map((p) => p.path)).toEqual(['$.operators[0].parallelsm', '$.setings']);
    expect(fields[0]!.message).toBe(
      'operator "s": parallelsm is not a known field (did you mean "parallelism"?)',
    );
    expect(fields[0]!.ids).toEqual(['s']);
    expect(fields[1]!.message).toContain('did you mean "settings"?');
  });

  it('an unknown kind lists the known kinds', () => {
    const { problems } = validateJob(job([{ id: 'x', kind: 'reduce', params: {} }]));
    const problem = only(problems, 'unknown-kind');
    expect(problem.path).toBe('$.operators[0].kind');
    expect(problem.ids).toEqual(['x']);
    expectNames(problem, 'x', 'reduce');
    for (const kind of OPERATOR_KINDS) expect(problem.message).toContain(kind);
  });

  it('an operator of unknown kind still has its id and parallelism checked', () => {
    const { problems } = validateJob(job([{ id: 'bad id', kind: 'reduce', parallelism: -1, params: {} }]));
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['invalid-value', '$.operators[0].id'],
      ['unknown-kind', '$.operators[0].kind'],
      ['invalid-value', '$.operators[0].parallelism'],
    ]);
  });

  it('a bad element inside a key names its position', () => {
    const { problems } = validateJob(
      job([source('s'), processOp('p')], [edge('e1', 's', 'p', { partition: 'hash', key: ['owner', 3] })]),
    );
    expect(only(problems, 'wrong-type')).toMatchObject({
      path: '$.edges[0].key[1]',
      ids: ['e1'],
      message: 'edge "e1": key[1] must be a string, not 3',
    });
  });

  it('a bad enum value lists the choices', () => {
    const { problems } = validateJob(
      job([source('s'), sink('o')], [edge('e1', 's', 'o', { partition: 'shuffle' })]),
    );
    const problem = only(problems, 'invalid-value');
    expect(problem.path).toBe('$.edges[0].partition');
    expect(problem.message).toContain('"forward", "rebalance", "hash", "broadcast"');
    expectNames(problem, 'e1', 'shuffle');
  });

  it('no message contains zod wording', () => {
    const { problems } = validateJob(
      job(
        [
          { id: 'a', kind: 'process', params: {} },
          { id: 'b', kind: 'nope' },
          'text',
          { id: 'c', kind: 'window', params: { type: 'x', aggregate: 'count', sizeMs: 1.5 } },
        ],
        [
          { id: 'e1', from: 'a', to: 'b', partition: 'hash', key: [] },
          { id: 'e2', key: 5 },
        ],
        {
          name: '',
          settings: { maxParallelism: 99999, extra: true },
          editor: { positions: { a: { x: 'q' } } },
        },
      ),
    );
    expect(problems.length).toBeGreaterThan(10);
    for (const problem of problems) {
      expect(problem.message).not.toMatch(
        /Invalid input|received|expected string|>=|discriminator|Unrecognized/,
      );
    }
  });
});

describe('graph rules', () => {
  it('duplicate operator id', () => {
    const { problems } = validateJob(job([source('a'), mapOp('a')]));
    const problem = only(problems, 'duplicate-operator-id');
    expect(problem).toMatchObject({ path: '$.operators[1].id', ids: ['a'] });
    expectNames(problem, 'a');
  });

  it('duplicate edge id', () => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m'), sink('o')], [edge('e1', 's', 'm'), edge('e1', 'm', 'o')]),
    );
    const problem = only(problems, 'duplicate-edge-id');
    expect(problem).toMatchObject({ path: '$.edges[1].id', ids: ['e1'] });
    expectNames(problem, 'e1');
  });

  it('edge from an unknown operator', () => {
    const { problems } = validateJob(job([sink('o')], [edge('e1', 'nowhere', 'o')]));
    const problem = only(problems, 'unknown-operator');
    expect(problem).toMatchObject({ path: '$.edges[0].from', ids: ['e1', 'nowhere'] });
    expectNames(problem, 'e1', 'nowhere');
  });

  it('edge to an unknown operator, with a suggestion', () => {
    const { problems } = validateJob(
      job(
        [source('events'), processOp('owners')],
        [edge('e1', 'events', 'owners'), edge('e2', 'events', 'ownrs')],
      ),
    );
    expect(only(problems, 'unknown-operator')).toEqual({
      code: 'unknown-operator',
      message: 'edge "e2" goes to unknown operator "ownrs" (did you mean "owners"?)',
      path: '$.edges[1].to',
      ids: ['e2', 'ownrs'],
    });
  });

  it('unknown port of a kind without user code', () => {
    const { problems } = validateJob(
      job([source('s'), sink('o')], [edge('e1', 's', 'o', { fromPort: 'late' })]),
    );
    const problem = only(problems, 'unknown-port');
    expect(problem).toMatchObject({ path: '$.edges[0].fromPort', ids: ['e1', 's'] });
    expectNames(problem, 'e1', 's', 'late');
  });

  it('unknown port: user code never emits to it', () => {
    const code = 'function process(r, ctx) { ctx.emit(r, "transfer"); }';
    const { problems } = validateJob(
      job(
        [source('s'), processOp('p', code), sink('o')],
        [edge('e1', 's', 'p'), edge('e2', 'p', 'o', { fromPort: 'transfr' })],
      ),
    );
    const problem = only(problems, 'unknown-port');
    expect(problem).toMatchObject({ path: '$.edges[1].fromPort', ids: ['e2', 'p'] });
    expectNames(problem, 'e2', 'p', 'transfr');
    expect(problem.message).toContain('did you mean "transfer"?');
  });

  it('ports named by user code are accepted', () => {
    const code = "function flatMap(r, ctx) { if (r.bad) ctx.emit(r, 'errors'); return [r]; }";
    const ops = [source('s'), { id: 'f', kind: 'flatMap', params: { code } }, sink('o'), sink('errs')];
    const edges = [
      edge('e1', 's', 'f'),
      edge('e2', 'f', 'o'),
      edge('e3', 'f', 'errs', { fromPort: 'errors' }),
    ];
    expect(validateJob(job(ops, edges)).problems).toEqual([]);
  });

  it('any port is accepted when the code names a port with an expression', () => {
    const code = 'function process(r, ctx) { ctx.emit(r, r.kind); }';
    const ops = [source('s'), processOp('p', code), sink('o')];
    const edges = [edge('e1', 's', 'p'), edge('e2', 'p', 'o', { fromPort: 'anything' })];
    expect(validateJob(job(ops, edges)).problems).toEqual([]);
  });

  it('a window may use its late port (reported only as not available yet)', () => {
    const window = {
      id: 'w',
      kind: 'window',
      params: { type: 'tumbling', sizeMs: 1000, aggregate: 'count' },
    };
    const { problems } = validateJob(
      job(
        [source('s'), window, sink('o')],
        [edge('e1', 's', 'w', { partition: 'hash', key: 'k' }), edge('e2', 'w', 'o', { fromPort: 'late' })],
      ),
    );
    expect(problems.map((p) => p.code)).toEqual(['not-yet-available']);
  });

  it('a sink has no outputs', () => {
    const { problems } = validateJob(job([sink('out'), mapOp('m')], [edge('e3', 'out', 'm')]));
    const problem = only(problems, 'edge-from-sink');
    expect(problem).toMatchObject({ path: '$.edges[0].from', ids: ['e3', 'out'] });
    expectNames(problem, 'e3', 'out');
  });

  it('a source has no inputs', () => {
    const { problems } = validateJob(job([mapOp('m'), source('events')], [edge('e1', 'm', 'events')]));
    const problem = only(problems, 'edge-to-source');
    expect(problem).toMatchObject({ path: '$.edges[0].to', ids: ['e1', 'events'] });
    expectNames(problem, 'e1', 'events');
  });

  it('a hash edge needs a key', () => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m')], [edge('e1', 's', 'm', { partition: 'hash' })]),
    );
    const problem = only(problems, 'missing-key');
    expect(problem).toMatchObject({ path: '$.edges[0].key', ids: ['e1'] });
    expectNames(problem, 'e1');
  });

  it.each(['forward', 'rebalance', 'broadcast'])('a %s edge takes no key', (partition) => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m')], [edge('e1', 's', 'm', { partition, key: 'k' })]),
    );
    const problem = only(problems, 'unexpected-key');
    expect(problem).toMatchObject({ path: '$.edges[0].key', ids: ['e1'] });
    expectNames(problem, 'e1');
    expect(problem.message).toContain(partition);
  });

  it('forward between different parallelisms names both operators and parallelisms', () => {
    const { problems } = validateJob(
      job(
        [source('events'), processOp('owners', undefined, { parallelism: 4 }), sink('out')],
        [edge('e1', 'events', 'owners'), edge('e3', 'owners', 'out', { partition: 'forward' })],
      ),
    );
    const problem = only(problems, 'forward-parallelism');
    expect(problem).toMatchObject({ path: '$.edges[1].partition', ids: ['e3', 'owners', 'out'] });
    expectNames(problem, 'e3', 'owners', 'out');
    expect(problem.message).toMatch(/"owners" has parallelism 4 and operator "out" has parallelism 1/);
  });

  it('forward with equal parallelisms is fine, default parallelism included', () => {
    const { problems } = validateJob(
      job([source('s', { parallelism: 1 }), sink('o')], [edge('e1', 's', 'o', { partition: 'forward' })]),
    );
    expect(problems).toEqual([]);
  });

  it('parallelism above settings.maxParallelism', () => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m', { parallelism: 16 })], [], { settings: { maxParallelism: 8 } }),
    );
    const problem = only(problems, 'parallelism-above-max');
    expect(problem).toMatchObject({ path: '$.operators[1].parallelism', ids: ['m'] });
    expectNames(problem, 'm');
    expect(problem.message).toContain('16');
    expect(problem.message).toContain('8');
  });

  it('parallelism above the default maxParallelism of 128', () => {
    const { problems } = validateJob(job([mapOp('m', { parallelism: 129 })]));
    expect(only(problems, 'parallelism-above-max').message).toContain('128');
  });

  it('a feedback edge must be hash-partitioned', () => {
    const { problems } = validateJob(
      job(
        [source('s'), processOp('p')],
        [edge('e1', 's', 'p', { partition: 'hash', key: 'k' }), edge('e2', 'p', 'p', { feedback: true })],
      ),
    );
    expect(problems.map((p) => p.code)).toEqual(['feedback-not-hash']);
    expect(problems[0]).toMatchObject({ path: '$.edges[1].partition', ids: ['e2'] });
    expectNames(problems[0]!, 'e2');
  });

  it('a cycle without a feedback edge names its operators in order, and its edges', () => {
    const { problems } = validateJob(
      job(
        [source('s'), mapOp('A'), mapOp('B'), mapOp('C')],
        [edge('e0', 's', 'A'), edge('e1', 'A', 'B'), edge('e3', 'C', 'A'), edge('e2', 'B', 'C')],
      ),
    );
    const problem = only(problems, 'cycle');
    expect(problem.path).toBe('$.edges[1]');
    expect(problem.ids).toEqual(['A', 'B', 'C', 'e1', 'e2', 'e3']);
    expect(problem.message).toContain('"A" -> "B" -> "C" -> "A"');
    expectNames(problem, 'e1', 'e2', 'e3');
  });

  it('reports each independent cycle, and a self-loop', () => {
    const { problems } = validateJob(
      job(
        [mapOp('a'), mapOp('b'), mapOp('c'), mapOp('d')],
        [edge('e1', 'a', 'b'), edge('e2', 'b', 'a'), edge('e3', 'c', 'd'), edge('e4', 'd', 'd')],
      ),
    );
    const cycles = problems.filter((p) => p.code === 'cycle');
    expect(cycles.map((p) => p.ids)).toEqual([
      ['a', 'b', 'e1', 'e2'],
      ['d', 'e4'],
    ]);
    expect(cycles[1]!.message).toContain('"d" -> "d"');
  });

  it('a cycle through a feedback edge is allowed', () => {
    const { problems } = validateJob(
      job(
        [source('s'), processOp('a'), processOp('b')],
        [
          edge('e1', 's', 'a', { partition: 'hash', key: 'k' }),
          edge('e2', 'a', 'b', { partition: 'hash', key: 'k' }),
          edge('e3', 'b', 'a', { partition: 'hash', key: 'k', feedback: true }),
        ],
      ),
    );
    expect(problems).toEqual([]);
  });

  it('a feedback edge does not excuse a second loop that avoids it', () => {
    const { problems } = validateJob(
      job(
        [mapOp('a'), mapOp('b'), mapOp('c')],
        [
          edge('e1', 'a', 'b'),
          edge('e2', 'b', 'a', { partition: 'hash', key: 'k', feedback: true }),
          edge('e3', 'b', 'c'),
          edge('e4', 'c', 'b'),
        ],
      ),
    );
    expect(only(problems, 'cycle').ids).toEqual(['b', 'c', 'e3', 'e4']);
  });

  it('a window needs hash-partitioned inputs', () => {
    const window = { id: 'w1', kind: 'window', params: { type: 'tumbling', sizeMs: 10, aggregate: 'count' } };
    const { problems } = validateJob(job([source('s'), window], [edge('e1', 's', 'w1')]));
    const problem = only(problems, 'keyed-input');
    expect(problem).toMatchObject({ path: '$.edges[0].partition', ids: ['e1', 'w1'] });
    expectNames(problem, 'e1', 'w1');
  });

  it('a transaction needs hash-partitioned inputs', () => {
    const tx = {
      id: 'tx',
      kind: 'transaction',
      params: { tables: ['accounts'], code: 'function keys(r) { return []; }\nfunction transact(r, tx) {}' },
    };
    const { problems } = validateJob(
      job([source('s'), tx], [edge('e1', 's', 'tx', { partition: 'broadcast' })]),
    );
    const problem = only(problems, 'keyed-input');
    expect(problem).toMatchObject({ path: '$.edges[0].partition', ids: ['e1', 'tx'] });
  });

  it('a process that uses state needs every input hash-partitioned, naming the one that is not', () => {
    const code = "function process(r, ctx) { const seen = ctx.state.value('seen'); seen.set(true); }";
    const { problems } = validateJob(
      job(
        [source('a'), source('b'), processOp('owners', code)],
        [
          edge('e1', 'a', 'owners', { partition: 'hash', key: 'k' }),
          edge('e2', 'b', 'owners', { partition: 'forward' }),
        ],
      ),
    );
    const problem = only(problems, 'keyed-input');
    expect(problem).toMatchObject({ path: '$.edges[1].partition', ids: ['e2', 'owners'] });
    expectNames(problem, 'e2', 'owners');
    expect(problem.message).not.toContain('"e1"');
  });

  it('a process that uses timers needs hash-partitioned inputs', () => {
    const code = 'function process(r, ctx) { ctx.timers.eventTime(r.ts + 1000); }';
    const { problems } = validateJob(job([source('s'), processOp('p', code)], [edge('e1', 's', 'p')]));
    expect(only(problems, 'keyed-input').ids).toEqual(['e1', 'p']);
  });

  it('a stateless process may take any input', () => {
    const { problems } = validateJob(
      job([source('s'), processOp('p')], [edge('e1', 's', 'p', { partition: 'broadcast' })]),
    );
    expect(problems).toEqual([]);
  });

  it.each([
    ['window', { type: 'tumbling', sizeMs: 10, aggregate: 'count' }],
    ['transaction', { tables: ['t'], code: 'function keys(r) { return []; } function transact(r, tx) {}' }],
  ])('kind %s is not available yet', (kind, params) => {
    const { problems } = validateJob(job([{ id: 'w1', kind, params }]));
    expect(problems).toEqual([
      {
        code: 'not-yet-available',
        message: `operator "w1": kind "${kind}" is not available yet in this version of Pipewright`,
        path: '$.operators[0].kind',
        ids: ['w1'],
      },
    ]);
  });

  it('user code must define the function its kind calls', () => {
    const { problems } = validateJob(job([processOp('owners', 'function handle(record, ctx) {}')]));
    expect(only(problems, 'missing-function')).toEqual({
      code: 'missing-function',
      message: 'operator "owners": params.code must define a function named process',
      path: '$.operators[0].params.code',
      ids: ['owners'],
    });
  });

  it.each([
    'function process(r, ctx) {}',
    'async function process(r, ctx) {}',
    'const process = (r, ctx) => {};',
    'process = async function (r, ctx) {};',
    '// helper\nlet process\nprocess = (r) => r',
  ])('accepts %j as defining process', (code) => {
    expect(validateJob(job([processOp('p', code)])).problems).toEqual([]);
  });

  it.each([
    '// function process(r, ctx) {}',
    'ctx.process = (r) => r',
    'const x = "function process"',
    'if (process == null) {}',
    '',
  ])('does not take %j as defining process', (code) => {
    expect(validateJob(job([processOp('p', code)])).problems.map((p) => p.code)).toEqual([
      'missing-function',
    ]);
  });

  it('checks the function name of every kind that runs user code', () => {
    const ops = [
      { id: 'g', kind: 'source.generator', params: { code: 'function gen(i) {}' } },
      { id: 'm', kind: 'map', params: { code: 'function mapper(r) {}' } },
      { id: 'f', kind: 'filter', params: { code: 'function map(r) {}' } },
      { id: 'fm', kind: 'flatMap', params: { code: 'function flat(r) {}' } },
      { id: 't', kind: 'transaction', params: { tables: ['x'], code: 'function transact(r, tx) {}' } },
    ];
    const missing = validateJob(job(ops))
      .problems.filter((p) => p.code === 'missing-function')
      .map((p) => [p.ids[0], p.message.split(' ').pop()]);
    expect(missing).toEqual([
      ['g', 'generate'],
      ['m', 'map'],
      ['f', 'filter'],
      ['fm', 'flatMap'],
      ['t', 'keys'],
    ]);
  });
});

describe('user code, parsed before a run', () => {
  it("a syntax error names the operator, the line and column in its code, and the parser's message", () => {
    const code = 'function process(r, ctx) {\n  ctx.emit(r);\n}\n}';
    const { problems } = validateJob(job([source('s'), processOp('p1', code)], [edge('e1', 's', 'p1')]));
    expect(problems).toEqual([
      {
        code: 'syntax-error',
        message: 'operator "p1": syntax error at line 4, column 1 of its code: Unexpected token \'}\'',
        path: '$.operators[1].params.code',
        ids: ['p1'],
        codeLine: 4,
        codeColumn: 1,
      },
    ]);
  });

  it("a require call is refused with the sandbox's reason", () => {
    const code = 'const fs = require("fs");\nfunction map(r) { return r; }';
    const problem = only(
      validateJob(job([{ id: 'm', kind: 'map', params: { code } }])).problems,
      'forbidden-in-code',
    );
    expect(problem).toEqual({
      code: 'forbidden-in-code',
      message:
        'operator "m": line 1, column 12 of its code: code may not use require (no ambient authority: only ctx and standard JavaScript built-ins)',
      path: '$.operators[0].params.code',
      ids: ['m'],
      codeLine: 1,
      codeColumn: 12,
    });
  });

  it('checks the code of every kind that runs code', () => {
    const ops = [
      { id: 'g', kind: 'source.generator', params: { code: 'function generate(i) { return i' } },
      { id: 'f', kind: 'filter', params: { code: 'function filter(r) { return r.a = ; }' } },
      { id: 'fm', kind: 'flatMap', params: { code: 'import x from "y"; function flatMap(r) {}' } },
    ];
    expect(validateJob(job(ops)).problems.map((p) => [p.code, p.ids[0]])).toEqual([
      ['syntax-error', 'g'],
      ['syntax-error', 'f'],
      ['forbidden-in-code', 'fm'],
    ]);
  });

  it('code that does not parse gets only its syntax error: no guesses about its functions or ports', () => {
    const code = 'function proces(r, ctx) {\n  ctx.emit(r, "side")\n  if (\n}';
    const { problems } = validateJob(
      job(
        [source('s'), processOp('p', code), sink('out')],
        [edge('e1', 's', 'p', { partition: 'forward' }), edge('e2', 'p', 'out', { fromPort: 'other' })],
      ),
    );
    expect(problems.map((p) => p.code)).toEqual(['syntax-error']);
  });

  it('keyed state named only in a comment or string does not make an operator keyed', () => {
    const code =
      '// was: ctx.state.value("n")\nfunction process(r, ctx) { ctx.emit({ note: "ctx.timers.x" }); }';
    const { problems } = validateJob(job([source('s'), processOp('p', code)], [edge('e1', 's', 'p')]));
    expect(problems).toEqual([]);
  });
});

describe('all at once', () => {
  it('a file with four different errors gives four problems, in document order', () => {
    const { job: parsed, problems } = validateJob(
      job(
        [
          source('events'),
          { id: 'owners', kind: 'process', parallelism: 4, params: {} },
          mapOp('m'),
          sink('out'),
        ],
        [
          edge('e1', 'events', 'owners', { partition: 'hash', key: 'owner' }),
          edge('e2', 'owners', 'ownrs'),
          edge('e3', 'owners', 'm', { partition: 'forward' }),
          edge('e4', 'm', 'out', { partition: 'hash' }),
        ],
      ),
    );
    expect(parsed).toBeUndefined();
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['required', '$.operators[1].params.code'],
      ['unknown-operator', '$.edges[1].to'],
      ['forward-parallelism', '$.edges[2].partition'],
      ['missing-key', '$.edges[3].key'],
    ]);
  });

  it('a schema error on one operator does not hide graph problems elsewhere', () => {
    const { problems } = validateJob(
      job(
        [source('s', { params: { path: '' } }), mapOp('a'), mapOp('b')],
        [edge('e1', 's', 'a'), edge('e2', 'a', 'b'), edge('e3', 'b', 'a'), edge('e4', 'b', 'gone')],
      ),
    );
    expect(problems.map((p) => p.code)).toEqual(['invalid-value', 'cycle', 'unknown-operator']);
  });

  it('an edge with a malformed field is still checked for the rest', () => {
    const { problems } = validateJob(
      job([source('s')], [{ id: 'e1', from: 's', to: 'ghost', partition: 'hash', key: 7 }]),
    );
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['unknown-operator', '$.edges[0].to'],
      ['wrong-type', '$.edges[0].key'],
    ]);
  });

  it('does not report unknown operators when the operator list itself is broken', () => {
    const { problems } = validateJob({
      format: JOB_FORMAT,
      name: 'x',
      operators: {},
      edges: [edge('e1', 'a', 'b')],
    });
    expect(problems.map((p) => p.code)).toEqual(['wrong-type']);
  });

  it('is deterministic', () => {
    const broken = job(
      [mapOp('a'), mapOp('a'), mapOp('b', { parallelism: 3 })],
      [edge('e1', 'a', 'b', { partition: 'forward' }), edge('e2', 'b', 'a'), edge('e1', 'a', 'x')],
    );
    expect(validateJob(broken)).toEqual(validateJob(structuredClone(broken)));
  });
});

describe('helpers', () => {
  it('formatJsonPath', () => {
    expect(formatJsonPath([])).toBe('$');
    expect(formatJsonPath(['edges', 2, 'to'])).toBe('$.edges[2].to');
    expect(formatJsonPath(['editor', 'positions', 'my op', 'x'])).toBe('$.editor.positions["my op"].x');
  });

  it('scanEmittedPorts reads literal ports and notices dynamic ones', () => {
    const literal = scanEmittedPorts(
      `// ctx.emit(r, dynamicInAComment)
       const s = "ctx.emit(r, dynamicInAString)";
       const re = /emit\\(r, x\\)/;
       ctx.emit({ a: [1, 2], b: \`\${x, y}\` }, "first");
       tx.emit(r, 'second');
       ctx.emit?.(r, \`third\`);
       ctx.emit(r);`,
    );
    expect(literal).toEqual({ ports: new Set(['out', 'first', 'second', 'third']), dynamic: false });
    for (const code of [
      'ctx.emit(r, port)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: user code with a template literal, as text.
      'ctx.emit(r, `p${i}`)',
      'xs.forEach(ctx.emit)',
      'ctx.emit.call(null, r, "x")',
      'ctx["emit"](r, "x")',
      'ctx.emit(...args)',
      'const { emit: send } = ctx',
    ]) {
      expect(scanEmittedPorts(code).dynamic, code).toBe(true);
    }
    expect(scanEmittedPorts('const { emit } = ctx; emit(r, "q")')).toEqual({
      ports: new Set(['out', 'q']),
      dynamic: false,
    });
  });
});

describe('documentation', () => {
  it('docs/job-file.md describes every problem code', () => {
    const docs = readFileSync(new URL('../../docs/job-file.md', import.meta.url), 'utf8');
    for (const code of PROBLEM_CODES) expect(docs, code).toContain(`\`${code}\``);
  });
});
