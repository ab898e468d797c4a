export declare function redisAnswers(port: number): Promise<boolean>;
export declare function startRedis(options: { dir: string; port: number }): Promise<void>;
export declare function stopRedis(options: { dir: string }): Promise<boolean>;
export declare function redisUrl(port: number): string;
