export declare const PG_USER: string;
export declare const PG_PASSWORD: string;
export declare const PG_DATABASE: string;
export declare function postgresBin(): string;
export declare function postgresUrl(port: number): string;
export declare function startPostgres(options: { dir: string; port: number }): Promise<void>;
export declare function postgresRunning(options: { dir: string }): boolean;
export declare function stopPostgres(options: {
  dir: string;
  mode?: 'smart' | 'fast' | 'immediate';
}): Promise<boolean>;
export declare function postgresAnswers(port: number): Promise<boolean>;
