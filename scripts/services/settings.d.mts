export declare const DEFAULT_SERVICES_DIR: string;
export interface FlinkTaskManagerPorts {
  rpcPort: number;
  dataPort: number;
  metricsPort: number;
}
export interface FlinkSettings {
  dir: string;
  cacheDir: string;
  /** The REST API's. */
  port: number;
  rpcPort: number;
  blobPort: number;
  metricsPort: number;
  /** One entry a TaskManager. */
  taskManagers: FlinkTaskManagerPorts[];
}
export declare function flinkPortsFrom(first: number): Omit<FlinkSettings, 'dir' | 'cacheDir' | 'port'>;
export declare function servicesSettings(): {
  dir: string;
  postgres: { dir: string; port: number };
  redis: { dir: string; port: number };
  kafka: { dir: string; cacheDir: string; port: number; controllerPort: number };
  flink: FlinkSettings;
};
