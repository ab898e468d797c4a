import { describe, expect, it } from 'vitest';
import { hasUriScheme, isAbsoluteOrUri } from './savepointNames.js';

describe('savepoint names', () => {
  it('tells a URI, which Flink reads, from a path of this machine', () => {
    expect(hasUriScheme('file:/sp/savepoint-1')).toBe(true);
    expect(hasUriScheme('s3://bucket/savepoint-1')).toBe(true);
    expect(hasUriScheme('/sp/savepoint-1')).toBe(false);
    expect(hasUriScheme('sp/savepoint-1')).toBe(false);
  });

  it('takes an absolute path or a URI as a name every process reads alike', () => {
    expect(isAbsoluteOrUri('/sp/savepoint-1')).toBe(true);
    expect(isAbsoluteOrUri('hdfs://nn/sp')).toBe(true);
    expect(isAbsoluteOrUri('sp/savepoint-1')).toBe(false);
    expect(isAbsoluteOrUri('./savepoint-1')).toBe(false);
  });
});
