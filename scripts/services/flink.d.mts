import type { FlinkSettings } from './settings.mjs';

/** 'jobmanager', or a TaskManager's index. */
export type FlinkRole = 'jobmanager' | number;
export interface FlinkOverview {
  taskmanagers: number;
  'slots-total': number;
  'slots-available': number;
  'jobs-running': number;
  'flink-version': string;
  [key: string]: unknown;
}
export declare const SLOTS_PER_TASK_MANAGER: number;
export declare const JAVA_OPTS_ALL: readonly string[];
export declare function flinkLibs(cacheDir: string): Promise<string>;
export declare function processName(role: FlinkRole): string;
export declare function processPaths(
  settings: { dir: string },
  role: FlinkRole,
): { configDir: string; tmpDir: string; log: string; out: string; pidFile: string };
export declare function flinkPorts(settings: FlinkSettings): [string, number][];
export declare function flinkConfig(
  settings: FlinkSettings,
  role: FlinkRole,
): Record<string, string | number>;
export declare function configYaml(config: Record<string, string | number>): string;
export declare function memoryArguments(output: string): { jvm: string[]; dynamic: string[] };
export declare function javaArguments(
  settings: FlinkSettings,
  role: FlinkRole,
  memory: { jvm: string[]; dynamic: string[] },
  libs: string,
  jvmOptions?: string[],
): string[];
export declare function flinkPid(settings: FlinkSettings, role: FlinkRole): number | undefined;
export declare function flinkOverview(port: number): Promise<FlinkOverview | undefined>;
export declare function flinkAnswers(port: number): Promise<boolean>;
export declare function waitForFlink(
  port: number,
  expected: { taskManagers: number; slots: number },
  timeoutMs: number,
  what: string,
  check?: () => void,
): Promise<void>;
export declare function startFlink(
  settings: FlinkSettings,
  options?: { jvmOptions?: string[]; timeoutMs?: number },
): Promise<void>;
export declare function stopFlink(settings: FlinkSettings, options?: { kill?: boolean }): Promise<boolean>;
export declare function killTaskManager(settings: FlinkSettings, index: number): Promise<boolean>;
export declare function startTaskManager(
  settings: FlinkSettings,
  index: number,
  options?: { jvmOptions?: string[] },
): Promise<number>;
export declare function rpcJarCopies(settings: FlinkSettings): string[];
