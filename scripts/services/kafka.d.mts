export declare function kafkaLibs(cacheDir: string): Promise<string>;
export declare function kafkaAnswers(port: number): Promise<boolean>;
export declare function startKafka(options: {
  dir: string;
  port: number;
  controllerPort: number;
  cacheDir: string;
  heap?: string;
  jvmOptions?: string[];
  extraProperties?: Record<string, string | number>;
  shareClasses?: boolean;
}): Promise<void>;
export declare function kafkaRunning(options: { dir: string }): boolean;
export declare function stopKafka(options: { dir: string; kill?: boolean }): Promise<boolean>;
export declare function fetchedJars(
  cacheDir: string,
  options: { folder: string; pom: string; marker: string; what: string },
): Promise<string>;
