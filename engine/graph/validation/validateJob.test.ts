import { describe, expect, it } from 'vitest';
import { JOB_FORMAT } from '../schema.js';
import { edge, job, mapOp, pipeline, processOp, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

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
