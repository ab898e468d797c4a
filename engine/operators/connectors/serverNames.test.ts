// A connector names its server in every wait line, failure and connection test, and only by host
// and port: a connection string that is no well-formed URL (no scheme, an unescaped "/" in the
// password) gave `PostgreSQL at :5432/SECRET@127.0.0.1` and `Kafka at probe:SECRET@127.0.0.1`.
import { describe, expect, it } from 'vitest';
import { kafkaServerName } from '../kafka/kafkaClientOptions.js';
import { postgresServer } from '../postgres/pgErrors.js';
import { describeRedisServer } from '../redis/redisConnection.js';
import { testConnection } from '../registry.js';

const SECRET = 'S3CRET';

/** Connection strings that carry SECRET somewhere a careless parse prints. */
const LEAKY = [
  `probe:${SECRET}@127.0.0.1`,
  `probe:${SECRET}@127.0.0.1:1`,
  `user:${SECRET}@127.0.0.1:1/db`,
  `postgres://user:${SECRET}@127.0.0.1:1/db`,
  `postgres://user:123/${SECRET}@127.0.0.1:1/db`,
  `redis://:${SECRET}@127.0.0.1:1`,
  `redis://:pa/${SECRET}@127.0.0.1:1`,
  `rediss://default:${SECRET}@127.0.0.1:1/0`,
  `127.0.0.1:1?password=${SECRET}`,
  `postgres://127.0.0.1:1/db?user=me@corp&password=${SECRET}`,
  `host=127.0.0.1 port=1 user=me password=${SECRET}`,
  `:${SECRET}`,
];

describe('a server is named by host and port only', () => {
  it.each(LEAKY)('%s', (connection) => {
    for (const name of [
      postgresServer(connection),
      describeRedisServer(connection),
      kafkaServerName(connection),
    ])
      expect(name).not.toContain(SECRET);
  });

  it('as the URL says it, with the default port where it gives none', () => {
    expect(postgresServer(`probe:${SECRET}@127.0.0.1`)).toBe('PostgreSQL at 127.0.0.1:5432');
    expect(postgresServer('postgres://app:pw@db.example:6543/orders')).toBe(
      'PostgreSQL at db.example:6543/orders',
    );
    expect(postgresServer(`postgres://user:123/${SECRET}@db/orders`)).toBe('PostgreSQL at db:5432/orders');
    expect(postgresServer('host=db port=6000 dbname=x password=pw')).toBe('PostgreSQL at db:6000');
    expect(describeRedisServer(`redis://:pa/${SECRET}@cache:7000`)).toBe('Redis at cache:7000');
    expect(describeRedisServer(`probe:${SECRET}@127.0.0.1`)).toBe('Redis at 127.0.0.1:6379');
    expect(kafkaServerName('k1:9092, k2:9093')).toBe('Kafka at k1:9092,k2:9093');
    expect(kafkaServerName('PLAINTEXT://k1:9092,SSL://k2')).toBe('Kafka at k1:9092,k2:9092');
    expect(kafkaServerName(`probe:${SECRET}@127.0.0.1`)).toBe('Kafka at 127.0.0.1:9092');
    // Nothing that reads as a host and port: the server, without an address.
    expect(postgresServer(`:${SECRET}`)).toBe('PostgreSQL');
    expect(kafkaServerName(`k1:${SECRET}`)).toBe('Kafka');
  });
});

describe('Test connection never says the password', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['sink.postgres', { connection: `probe:${SECRET}@127.0.0.1:1`, table: 't', mode: 'append' }],
    ['source.postgres', { connection: `probe:${SECRET}@127.0.0.1:1`, table: 't' }],
    ['sink.redis', { url: `probe:${SECRET}@127.0.0.1:1`, stream: 's' }],
    ['source.redis', { url: `redis://:pa/${SECRET}@127.0.0.1:1`, stream: 's' }],
    ['sink.kafka', { bootstrapServers: `probe:${SECRET}@127.0.0.1:1`, topic: 't' }],
    ['source.kafka', { bootstrapServers: `probe:${SECRET}@127.0.0.1:1`, topic: 't' }],
  ];
  it.each(cases)('%s', async (kind, params) => {
    const check = await testConnection(kind, { ...params, retryTimeoutMs: 0 }, 'op');
    expect(check.ok).toBe(false);
    expect(check.message).not.toContain(SECRET);
  });
});
