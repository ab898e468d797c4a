export declare const CHROMIUM_HINT: string;
export declare function findChromium(): Promise<string | undefined>;
