// The validator's rules about connector params taken together (validation/connectorRules.ts) said
// beside the field they are about, as the operator form finds them: by the problem's path.
import { describe, expect, it } from 'vitest';
import { getKind, kindFields, validateJob } from '../../engine/graph/index.js';
import { formFields } from './applicableFields';
import { inlineMessage, problemsAt } from './problemPaths';

const job = {
  format: 'pipewright.job/1',
  name: 'connectors',
  operators: [
    { id: 'none', kind: 'source.kafka', params: { bootstrapServers: 'localhost:9092' } },
    {
      id: 'both',
      kind: 'source.kafka',
      params: {
        bootstrapServers: '${env:KAFKA_BROKERS}',
        topic: 'a',
        topics: ['b'],
        startingOffsets: 'committed',
      },
    },
    { id: 'badRef', kind: 'source.redis', params: { url: '${env:REDIS URL}', stream: 's' } },
    {
      id: 'upsert',
      kind: 'sink.postgres',
      params: { connection: '${env:PG_URL}', table: 't', mode: 'upsert' },
    },
  ],
  edges: [],
};

/** Each field's problems, as the operator form shows them, for the operator at `index`. */
function fieldProblems(index: number): Record<string, string[]> {
  const { problems } = validateJob(job);
  const op = job.operators[index]!;
  const descriptor = getKind(op.kind)!;
  const shown: Record<string, string[]> = {};
  for (const { field } of formFields(descriptor, kindFields(descriptor), op.params)) {
    const found = problemsAt(problems, ['operators', index, 'params', field.name]).map(inlineMessage);
    if (found.length > 0) shown[field.name] = found;
  }
  return shown;
}

describe('connector rules beside their fields', () => {
  it('a Kafka source without a topic: on the topic field', () => {
    expect(fieldProblems(0)).toEqual({
      topic: ['a Kafka source needs params.topic, params.topics or params.topicPattern'],
    });
  });

  it('two ways of naming topics, and "committed" without a group: on topics and groupId', () => {
    const shown = fieldProblems(1);
    expect(Object.keys(shown).sort()).toEqual(['groupId', 'topics']);
    expect(shown.topics?.[0]).toMatch(/give exactly one of topic, topics, topicPattern/);
    expect(shown.groupId?.[0]).toMatch(/^startingOffsets "committed" needs params.groupId/);
  });

  it('an environment reference that is not well formed: on the URL field', () => {
    expect(fieldProblems(2).url?.[0]).toMatch(/is not an environment variable reference/);
  });

  it('an upsert without key columns: on the keyColumns field', () => {
    expect(Object.keys(fieldProblems(3))).toEqual(['keyColumns']);
  });
});
