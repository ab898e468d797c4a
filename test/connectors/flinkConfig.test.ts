// The pure parts of the Flink cluster's start (scripts/services/flink.mjs): each process's
// config.yaml, BashJavaUtils's output read as flink-dist's scripts read it, the java command of
// each process, and the ports of settings.mjs. The cluster itself: flinkCluster.test.ts, and a
// TaskManager's loss: flinkTaskManager.soak.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  configYaml,
  flinkConfig,
  flinkPorts,
  javaArguments,
  memoryArguments,
  processPaths,
} from '../../scripts/services/flink.mjs';
import { type FlinkSettings, flinkPortsFrom, servicesSettings } from '../../scripts/services/settings.mjs';

const settings: FlinkSettings = {
  dir: '/var/tmp/pw/flink',
  cacheDir: '/var/tmp/pw',
  port: 8081,
  ...flinkPortsFrom(6123),
};

/** What BashJavaUtils 2.3.0 printed for a TaskManager of 1536m (its log lines first). */
const TM_OUTPUT = [
  'INFO  [] - Loading configuration property: taskmanager.numberOfTaskSlots, 2',
  'BASH_JAVA_UTILS_EXEC_RESULT:-Xmx436207608 -Xms436207608 -XX:MaxDirectMemorySize=248302798 -XX:MaxMetaspaceSize=268435456',
  'BASH_JAVA_UTILS_EXEC_RESULT:-D taskmanager.memory.network.min=114085070b -D taskmanager.cpu.cores=2.0 -D taskmanager.memory.managed.size=456340282b',
  '',
].join('\n');

describe("the Flink cluster's configuration", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('gives every process ports of its own, the TaskManagers the JobManager’s address', () => {
    const ports = flinkPorts(settings).map(([, port]) => port);
    expect(ports).toEqual([8081, 6123, 6124, 6125, 6126, 6127, 6128, 6129, 6130, 6131]);
    const jm = flinkConfig(settings, 'jobmanager');
    const tms = [0, 1].map((index) => flinkConfig(settings, index));
    expect(jm['metrics.internal.query-service.port']).toBe(6125);
    expect(tms.map((tm) => [tm['taskmanager.rpc.port'], tm['taskmanager.data.port']])).toEqual([
      [6126, 6127],
      [6129, 6130],
    ]);
    expect(tms.map((tm) => tm['metrics.internal.query-service.port'])).toEqual([6128, 6131]);
    for (const config of [jm, ...tms]) {
      expect(config['jobmanager.rpc.port']).toBe(6123);
      expect(config['rest.port']).toBe(8081);
      expect(config['taskmanager.numberOfTaskSlots']).toBe(2);
    }
    expect(() => flinkPorts({ ...settings, blobPort: 8081 })).toThrow(
      "Flink's blob server port 8081 is also its REST port",
    );
  });

  it('keeps checkpoints and temporary files in the services folder, and recovers quickly', () => {
    const tm = flinkConfig(settings, 1);
    expect(tm).toMatchObject({
      'state.backend.type': 'rocksdb',
      'execution.checkpointing.dir': 'file:///var/tmp/pw/flink/checkpoints',
      'io.tmp.dirs': '/var/tmp/pw/flink/taskmanager-1/tmp',
      'heartbeat.interval': 1000,
      'heartbeat.timeout': 6000,
      'restart-strategy.type': 'fixed-delay',
      'resourcemanager.standalone.start-up-time': 86_400_000,
      'slot.request.timeout': 60_000,
      'taskmanager.resource-id': 'taskmanager-1',
    });
    expect(String(tm['env.java.opts.all'])).toContain('--add-opens=java.base/java.util=ALL-UNNAMED');
  });

  it('writes config.yaml one flat key a line, strings quoted', () => {
    const text = configYaml({ 'rest.port': 8081, 'state.backend.type': 'rocksdb', 'a.b': 'x: "y"' });
    expect(text.split('\n').slice(1)).toEqual([
      'rest.port: 8081',
      'state.backend.type: "rocksdb"',
      'a.b: "x: \\"y\\""',
      '',
    ]);
  });

  it("reads BashJavaUtils's two result lines as flink-dist's scripts do", () => {
    expect(memoryArguments(TM_OUTPUT)).toEqual({
      jvm: [
        '-Xmx436207608',
        '-Xms436207608',
        '-XX:MaxDirectMemorySize=248302798',
        '-XX:MaxMetaspaceSize=268435456',
      ],
      dynamic: [
        '-D',
        'taskmanager.memory.network.min=114085070b',
        '-D',
        'taskmanager.cpu.cores=2.0',
        '-D',
        'taskmanager.memory.managed.size=456340282b',
      ],
    });
    expect(() => memoryArguments('Exception in thread "main"\n')).toThrow(/0 result lines, not 2/);
  });

  it('starts each process with the Java 17 options, its memory flags, config folder and -D pairs', () => {
    const memory = memoryArguments(TM_OUTPUT);
    const args = javaArguments(settings, 0, memory, '/cache/flink-libs', ['-XX:+UseSerialGC']);
    const { configDir, tmpDir, log } = processPaths(settings, 0);
    expect(args).toContain('--add-opens=java.base/java.util=ALL-UNNAMED');
    const main = args.indexOf('org.apache.flink.runtime.taskexecutor.TaskManagerRunner');
    expect(main).toBeGreaterThan(args.indexOf('-Xmx436207608'));
    expect(args.slice(main - 2, main)).toEqual(['-cp', '/cache/flink-libs/*']);
    expect(args.slice(main + 1)).toEqual(['--configDir', configDir, ...memory.dynamic]);
    expect(args.slice(0, main)).toEqual(
      expect.arrayContaining(['-XX:+UseSerialGC', `-Djava.io.tmpdir=${tmpDir}`, `-Dlog.file=${log}`]),
    );
    const jm = javaArguments(settings, 'jobmanager', { jvm: [], dynamic: [] }, '/cache/flink-libs');
    expect(jm.slice(-3)).toEqual([
      'org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint',
      '--configDir',
      '/var/tmp/pw/flink/jobmanager',
    ]);
  });

  it('takes its ports from PIPEWRIGHT_FLINK_PORT and PIPEWRIGHT_FLINK_RPC_PORT', () => {
    vi.stubEnv('PIPEWRIGHT_SERVICES_DIR', '/srv/pw');
    vi.stubEnv('PIPEWRIGHT_FLINK_PORT', '18081');
    vi.stubEnv('PIPEWRIGHT_FLINK_RPC_PORT', '16123');
    const flink = servicesSettings().flink;
    expect(flink).toMatchObject({ dir: '/srv/pw/flink', port: 18081, rpcPort: 16123, blobPort: 16124 });
    expect(flink.taskManagers.at(-1)).toEqual({ rpcPort: 16129, dataPort: 16130, metricsPort: 16131 });
    vi.stubEnv('PIPEWRIGHT_FLINK_RPC_PORT', '65530');
    expect(() => servicesSettings()).toThrow(/no room for 9 ports/);
  });
});
