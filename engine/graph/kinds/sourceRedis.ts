// source.redis: a Redis stream read by entry id, the last id read in checkpoints.
import { z } from 'zod';
import { connectionString, onBadRecord, retryTimeoutMs } from './connectorParams.js';
import { defineKind } from './kindDescriptor.js';

export const sourceRedisKind = defineKind({
  kind: 'source.redis',
  role: 'source',
  params: z.strictObject({
    url: connectionString('A Redis URL, "redis://[user:password@]host:port[/db]"'),
    stream: z.string().min(1).describe('The stream key.'),
    startId: z
      .string()
      .min(1)
      .optional()
      .describe('Read entries after this id: "0" (default) is all, "$" only new ones.'),
    stopAt: z
      .enum(['last'])
      .optional()
      .describe('"last": a bounded read that ends at the entry that was last when the job started.'),
    onBadRecord,
    retryTimeoutMs,
  }),
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Redis stream',
    group: 'source',
    description: 'Reads a Redis stream by entry id; an entry whose one field is "json" is that JSON value.',
    idBase: 'redis',
    defaultParams: { url: '${env:REDIS_URL}', stream: 'events' },
    icon: 'M2 5l6-3 6 3-6 3z M2 8l6 3 6-3 M2 11l6 3 6-3',
    connectionParams: ['url'],
  },
});
