export declare const DEFAULT_SERVICES_DIR: string;
export declare function servicesSettings(): {
  dir: string;
  postgres: { dir: string; port: number };
  redis: { dir: string; port: number };
  kafka: { dir: string; cacheDir: string; port: number; controllerPort: number };
};
