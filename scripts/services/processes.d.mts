export declare class ServiceError extends Error {}
export declare const isRoot: boolean;
export declare function freePort(): Promise<number>;
export declare function freeConsecutivePorts(count: number): Promise<number>;
export declare function portAnswers(port: number, host?: string): Promise<boolean>;
export declare function processAlive(pid: number): boolean;
export declare function readPid(pidFile: string): number | undefined;
