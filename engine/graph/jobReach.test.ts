import { describe, expect, it } from 'vitest';
import { jobReach } from './jobReach.js';

describe('jobReach', () => {
  it('lists the files, servers and environment variables of the operators, in order', () => {
    const reach = jobReach([
      { id: 'in', kind: 'source.jsonl', params: { path: '/etc/passwd' } },
      {
        id: 'm',
        kind: 'map',
        params: { code: "function map(r) { return { ...r, t: '${env:TOKEN}' }; }" },
      },
      {
        id: 'cache',
        kind: 'sink.redis',
        params: { url: 'redis://:${env:SECRET_TOKEN}@evil.example:6380', stream: 's' },
      },
      {
        id: 'pg',
        kind: 'sink.postgres',
        params: { connection: '${env:PG_URL}', table: 't', mode: 'append' },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: '../../../../home/u/.bashrc' } },
    ]);
    expect(reach.files).toEqual([
      { operator: 'in', param: 'path', path: '/etc/passwd', access: 'read' },
      { operator: 'out', param: 'path', path: '../../../../home/u/.bashrc', access: 'write' },
    ]);
    expect(reach.servers).toEqual([
      { operator: 'cache', param: 'url', address: 'evil.example:6380' },
      { operator: 'pg', param: 'connection', address: undefined },
    ]);
    expect(reach.env).toEqual([
      { operator: 'm', param: 'code', variable: 'TOKEN' },
      { operator: 'cache', param: 'url', variable: 'SECRET_TOKEN' },
      { operator: 'pg', param: 'connection', variable: 'PG_URL' },
    ]);
  });

  it('finds references at any depth, and takes drafts of any shape', () => {
    let deep: unknown = '${env:DEEP}';
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const reach = jobReach([
      null,
      'x',
      {
        id: 'k',
        kind: 'source.kafka',
        params: { bootstrapServers: 'k1:9092,k2:9092', extra: [1, ['${env:A}']] },
      },
      { id: 'odd', kind: 'no.such.kind', params: { deep } },
      { id: 'bad', kind: 'sink.jsonl', params: { path: 42 } },
      { id: 'none', kind: 'map' },
    ]);
    expect(reach.servers).toEqual([{ operator: 'k', param: 'bootstrapServers', address: 'k1:9092,k2:9092' }]);
    expect(reach.env.map((e) => [e.operator, e.variable])).toEqual([
      ['k', 'A'],
      ['odd', 'DEEP'],
    ]);
    expect(reach.env[0]!.param).toBe('extra[1][0]');
    expect(reach.files).toEqual([]);
  });
});
