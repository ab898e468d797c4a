// Soak: a TaskManager of a Flink cluster killed with kill -9 and started again
// (scripts/services/flink.mjs's killTaskManager and startTaskManager, which the Flink runner's
// fault tests use): the JobManager notices the loss, takes the new process back, and reports its
// 4 slots again; stopping the cluster leaves no process and no flink-rpc-akka jar copy behind. On
// a cluster of the test's own (privateServers.ts): the shared one of `npm run services` is never
// disturbed.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  flinkOverview,
  flinkPid,
  rpcJarCopies,
  stopFlink,
  waitForFlink,
} from '../../scripts/services/flink.mjs';
import { type PrivateFlink, startPrivateFlink } from './privateServers.js';
import { SERVICES_REQUIRED } from './servers.js';

const installed = existsSync('/usr/bin/java') && existsSync('/usr/bin/mvn');

let cluster: PrivateFlink | undefined;
afterAll(async () => {
  await cluster?.close();
});

// Without Java and Maven (a machine that never ran `npm run services`) there is nothing to test;
// CI installs them and requires them.
describe.skipIf(!installed && !SERVICES_REQUIRED)('a Flink TaskManager killed with -9', () => {
  it('is seen gone, comes back when started again, and the cluster reports 4 slots', async () => {
    cluster = await startPrivateFlink();
    const { settings, port } = cluster;
    expect(await flinkOverview(port)).toMatchObject({ taskmanagers: 2, 'slots-total': 4 });
    expect(rpcJarCopies(settings)).toHaveLength(3);

    const killed = flinkPid(settings, 1)!;
    await cluster.killTaskManager(1);
    expect(flinkPid(settings, 1)).toBeUndefined();
    // The heartbeat times out after 6 s; a killed process's dropped connection is seen sooner.
    await waitForFlink(port, { taskManagers: 1, slots: 2 }, 60_000, 'the JobManager did not see the loss');

    await cluster.startTaskManager(1);
    expect(flinkPid(settings, 1)).not.toBe(killed);
    await waitForFlink(port, { taskManagers: 2, slots: 4 }, 180_000, 'the TaskManager did not come back');
    // Its predecessor's jar copy was cleared before it started: one a process.
    expect(rpcJarCopies(settings)).toHaveLength(3);

    const pids = [flinkPid(settings, 'jobmanager'), flinkPid(settings, 0), flinkPid(settings, 1)];
    expect(pids.every((pid) => pid !== undefined)).toBe(true);
    expect(await stopFlink(settings)).toBe(true);
    for (const pid of pids) expect(() => process.kill(pid!, 0), `pid ${pid}`).toThrow();
    expect(rpcJarCopies(settings)).toEqual([]);
    expect(await flinkOverview(port)).toBeUndefined();
  });
});
