// sink.redis: each record one stream entry with one field "json"; exactly once: a checkpoint's
// entries and a marker of it are written in one MULTI/EXEC, so a replay after restore adds nothing.
import { z } from 'zod';
import { connectionString, retryTimeoutMs } from './connectorParams.js';
import { defineKind } from './kindDescriptor.js';

export const sinkRedisKind = defineKind({
  kind: 'sink.redis',
  role: 'sink',
  params: z.strictObject({
    url: connectionString('A Redis URL, "redis://[user:password@]host:port[/db]"'),
    stream: z.string().min(1).describe('The stream key.'),
    retryTimeoutMs,
  }),
  ports: { inputs: true, outputs: [] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Redis stream',
    group: 'sink',
    description: 'Appends each record to a Redis stream as one entry, exactly once.',
    idBase: 'redis-out',
    defaultParams: { url: '${env:REDIS_URL}', stream: 'results' },
    icon: 'M2 5l6-3 6 3-6 3z M2 8l6 3 6-3 M2 11l6 3 6-3',
    connectionParams: ['url'],
  },
});
