import { describe, expect, it } from 'vitest';
import type { Problem } from '../problem.js';
import { edge, job, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

// The connector kinds say `available: false` until their factories are registered: that problem
// is the kind's, not these rules', and these tests hold with it or without it.
const mine = (problems: readonly Problem[]) => problems.filter((p) => p.code !== 'not-yet-available');

const KAFKA = { bootstrapServers: '${env:KAFKA_BROKERS}' };

function kafkaProblems(params: Record<string, unknown>) {
  return mine(
    validateJob(
      job(
        [{ id: 'orders', kind: 'source.kafka', params: { ...KAFKA, ...params } }, sink('o')],
        [edge('e1', 'orders', 'o')],
      ),
    ).problems,
  );
}

function postgresProblems(params: Record<string, unknown>) {
  return mine(
    validateJob(
      job(
        [
          source('s'),
          {
            id: 'rows',
            kind: 'sink.postgres',
            params: { connection: 'postgres://h/db', table: 't', ...params },
          },
        ],
        [edge('e1', 's', 'rows')],
      ),
    ).problems,
  );
}

describe('source.kafka params', () => {
  it.each([
    { topic: 'events' },
    { topics: ['a', 'b'] },
    { topicPattern: 'orders-.*' },
    { topic: 'events', startingOffsets: 'committed', groupId: 'g' },
    { topic: 'events', startingOffsets: { timestamp: 5 } },
  ])('%j is valid', (params) => {
    expect(kafkaProblems(params)).toEqual([]);
  });

  it('names no topic', () => {
    expect(kafkaProblems({})).toEqual([
      {
        code: 'required',
        message: 'operator "orders": a Kafka source needs params.topic, params.topics or params.topicPattern',
        path: '$.operators[0].params.topic',
        ids: ['orders'],
      },
    ]);
  });

  it('names topics twice over', () => {
    expect(kafkaProblems({ topic: 'a', topicPattern: 'b.*' })).toEqual([
      {
        code: 'invalid-value',
        message:
          'operator "orders": params.topic and params.topicPattern both name topics: give exactly one of topic, topics, topicPattern',
        path: '$.operators[0].params.topicPattern',
        ids: ['orders'],
      },
    ]);
  });

  it('a topicPattern that is not a regular expression', () => {
    expect(kafkaProblems({ topicPattern: 'orders-(' })).toEqual([
      {
        code: 'invalid-value',
        message: 'operator "orders": params.topicPattern "orders-(" is not a valid regular expression',
        path: '$.operators[0].params.topicPattern',
        ids: ['orders'],
      },
    ]);
  });

  it('starts at committed offsets without a group', () => {
    expect(kafkaProblems({ topic: 'a', startingOffsets: 'committed' })).toEqual([
      {
        code: 'required',
        message:
          'operator "orders": startingOffsets "committed" needs params.groupId, the consumer group whose offsets it starts from',
        path: '$.operators[0].params.groupId',
        ids: ['orders'],
      },
    ]);
  });
});

describe('sink.postgres params', () => {
  it.each([{ mode: 'upsert', keyColumns: ['id'] }, { mode: 'append' }])('%j is valid', (params) => {
    expect(postgresProblems(params)).toEqual([]);
  });

  it('upsert without key columns', () => {
    expect(postgresProblems({ mode: 'upsert' })).toEqual([
      {
        code: 'required',
        message: 'operator "rows": mode "upsert" needs params.keyColumns, the columns a row is identified by',
        path: '$.operators[1].params.keyColumns',
        ids: ['rows'],
      },
    ]);
  });

  it('append with key columns', () => {
    expect(postgresProblems({ mode: 'append', keyColumns: ['id'] })).toMatchObject([
      { code: 'invalid-value', path: '$.operators[1].params.keyColumns', ids: ['rows'] },
    ]);
  });
});

describe('environment variable references, in any kind', () => {
  it.each([
    '${env:PG_URL}',
    'postgres://${env:PG_USER}:${env:PG_PASSWORD}@h/db',
    '${env:_A1}',
    'no reference at all, $HOME {env:X}',
  ])('%s is well formed', (connection) => {
    expect(postgresProblems({ mode: 'append', connection })).toEqual([]);
  });

  it.each([
    ['${env:}', '"${env:}"'],
    ['${env:A-B}', '"${env:A-B}"'],
    ['${env:1A}', '"${env:1A}"'],
    ['postgres://${env:PG_URL', '"${env:PG_URL"'],
    ['${env:OK}/${env:bad name}', '"${env:bad name}"'],
  ])('%s is a problem naming the param', (connection, quoted) => {
    expect(postgresProblems({ mode: 'append', connection })).toEqual([
      {
        code: 'invalid-value',
        message: `operator "rows": param "connection" has ${quoted}, which is not an environment variable reference: write "\${env:NAME}", NAME of letters, digits and _ (not starting with a digit)`,
        path: '$.operators[1].params.connection',
        ids: ['rows'],
      },
    ]);
  });

  it('is found at any depth, in a built-in kind too', () => {
    const problems = validateJob(
      job([source('s', { params: { path: '${env:IN-DIR}/a.jsonl' } }), sink('o')], [edge('e1', 's', 'o')]),
    ).problems;
    expect(problems).toMatchObject([
      { code: 'invalid-value', path: '$.operators[0].params.path', ids: ['s'] },
    ]);
    expect(kafkaProblems({ topics: ['a', '${env:}'] })).toMatchObject([
      { code: 'invalid-value', path: '$.operators[0].params.topics[1]', ids: ['orders'] },
    ]);
  });
});
