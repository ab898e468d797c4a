import { describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER, parseTarget, readCluster, writeCluster } from './flinkTarget';

describe('Run on Flink… target', () => {
  it('remembers the last cluster, and starts from the services one', () => {
    const kept = new Map<string, string>();
    const storage = {
      getItem: (k: string) => kept.get(k) ?? null,
      setItem: (k: string, v: string) => kept.set(k, v),
    };
    expect(readCluster(storage)).toBe(DEFAULT_CLUSTER);
    writeCluster('http://flink.example:8081', storage);
    expect(readCluster(storage)).toBe('http://flink.example:8081');
    expect(readCluster(undefined)).toBe(DEFAULT_CLUSTER);
  });

  it('takes an http address and an optional parallelism, and says what is wrong otherwise', () => {
    expect(parseTarget(' http://h:8081 ', '')).toEqual({ cluster: 'http://h:8081' });
    expect(parseTarget('https://h', '4')).toEqual({ cluster: 'https://h', parallelism: 4 });
    expect(parseTarget('h:8081', '')).toEqual({
      problem: 'The cluster’s REST address, such as http://127.0.0.1:8081',
    });
    expect(parseTarget('http://h', '0')).toHaveProperty('problem');
    expect(parseTarget('http://h', '1.5')).toHaveProperty('problem');
  });

  it('goes on from a savepoint given by its absolute path or URI, or starts anew without one', () => {
    expect(parseTarget('http://h', '', ' file:/sp/savepoint-1 ')).toEqual({
      cluster: 'http://h',
      fromSavepoint: 'file:/sp/savepoint-1',
    });
    expect(parseTarget('http://h', '2', '/sp/savepoint-1')).toEqual({
      cluster: 'http://h',
      parallelism: 2,
      fromSavepoint: '/sp/savepoint-1',
    });
    expect(parseTarget('http://h', '', '  ')).toEqual({ cluster: 'http://h' });
    expect(parseTarget('http://h', '', 'sp/savepoint-1')).toEqual({
      problem: 'The savepoint’s absolute path or URI, as a stop names it, or empty to start anew',
    });
  });
});
