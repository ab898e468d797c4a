export declare function classArchiveOptions(dir: string, archive: string): string[];
export declare function keepClassArchive(dir: string): void;
export declare function classArchivePending(dir: string): boolean;
