// The line `npm test` prints when connector tests skip for want of a server (skippedNotice.ts):
// which files (of the tier that runs), and how to start the servers.
import { describe, expect, it } from 'vitest';
import { serverAddress } from './servers.js';
import { commandLineFilters, filesOfTier, skippedNotice } from './skippedNotice.js';

describe('the line npm test prints when connector tests skip', () => {
  const files = new Map([
    ['test/connectors/kafkaSink.test.ts', "await describeWithServer('kafka', 'sink', () => {});"],
    ['test/connectors/redisCli.test.ts', "await describeWithServer(\n  'redis',\n  'cli', () => {});"],
    ['test/connectors/servicesScript.test.ts', "describe.skipIf(!installed)('servers', () => {});"],
    ['test/connectors/jobEnd.test.ts', "await describeWithServers(['kafka', 'postgres'], 'end', () => {});"],
    ['test/connectors/flinkCluster.test.ts', "await describeWithServer('flink', 'cluster', () => {});"],
  ]);

  it('names the files whose server is down and how to start the servers', () => {
    expect(skippedNotice(['redis'], files, [])).toBe(
      `Skipped connector tests, no redis at ${serverAddress('redis').host}:${serverAddress('redis').port}: test/connectors/redisCli.test.ts. Start the servers with \`npm run services\`.`,
    );
    expect(skippedNotice(['kafka', 'redis'], files, [])).toContain(
      ': test/connectors/jobEnd.test.ts, test/connectors/kafkaSink.test.ts, test/connectors/redisCli.test.ts. Start',
    );
    expect(skippedNotice(['flink'], files, [])).toBe(
      `Skipped connector tests, no flink at ${serverAddress('flink').host}:${serverAddress('flink').port}: test/connectors/flinkCluster.test.ts. Start the servers with \`npm run services\`.`,
    );
    // A file that needs several servers skips when any of them is down.
    expect(skippedNotice(['postgres'], files, [])).toContain(': test/connectors/jobEnd.test.ts. Start');
  });

  it('says nothing when the files run are not the ones that skip', () => {
    expect(skippedNotice(['redis'], files, ['kafkaSink'])).toBeUndefined();
    expect(skippedNotice(['kafka'], files, ['engine/'])).toBeUndefined();
    expect(commandLineFilters(['run', 'engine/', '-t', 'kafka', '--reporter', 'dot', '--bail'])).toEqual([
      'engine/',
    ]);
  });

  it('names only the files of the tier that runs', () => {
    const names = ['kafkaRestore.test.ts', 'kafkaSinkRestore.soak.test.ts', 'keepAlive.ts'];
    expect(filesOfTier(names, false)).toEqual(['kafkaRestore.test.ts']);
    expect(filesOfTier(names, true)).toEqual(['kafkaSinkRestore.soak.test.ts']);
  });
});
