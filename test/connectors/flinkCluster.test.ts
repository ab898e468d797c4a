// The Flink cluster `npm run services` starts for the Flink runner's tests
// (scripts/services/flink.mjs): a JobManager whose REST API answers, two TaskManagers of two
// slots each, and the settings a TaskManager's loss and a job's restart depend on. Skips (or,
// with PIPEWRIGHT_REQUIRE_SERVICES=1, fails) when nothing answers at PIPEWRIGHT_FLINK_URL.
import { expect, it } from 'vitest';
import { describeWithServer, FLINK_URL } from './servers.js';

async function rest<T>(path: string): Promise<T> {
  const response = await fetch(`${FLINK_URL}${path}`, { signal: AbortSignal.timeout(10_000) });
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

await describeWithServer('flink', 'the Flink cluster of npm run services', () => {
  it('reports Flink 2.3.0 with 2 TaskManagers and 4 slots', async () => {
    const overview = await rest<Record<string, unknown>>('/overview');
    expect(overview).toMatchObject({ 'flink-version': '2.3.0', taskmanagers: 2, 'slots-total': 4 });
    const { taskmanagers } = await rest<{ taskmanagers: { id: string; slotsNumber: number }[] }>(
      '/taskmanagers',
    );
    expect(taskmanagers.map((tm) => [tm.id, tm.slotsNumber]).sort()).toEqual([
      ['taskmanager-0', 2],
      ['taskmanager-1', 2],
    ]);
  });

  it('runs with RocksDB, file checkpoints, short heartbeats and fixed-delay restarts', async () => {
    const entries = await rest<{ key: string; value: string }[]>('/jobmanager/config');
    const config = new Map(entries.map(({ key, value }) => [key, value]));
    expect(config.get('state.backend.type')).toBe('rocksdb');
    expect(config.get('execution.checkpointing.dir')).toMatch(/^file:\/\/\/.*\/checkpoints$/);
    expect(config.get('heartbeat.interval')).toBe('1000');
    expect(config.get('heartbeat.timeout')).toBe('6000');
    expect(config.get('restart-strategy.type')).toBe('fixed-delay');
    expect(config.get('resourcemanager.standalone.start-up-time')).toBe('86400000');
    expect(config.get('slot.request.timeout')).toBe('60000');
  });
});
