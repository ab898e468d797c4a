export declare function electronBinary(): string | undefined;
export declare function hasDisplay(): boolean;
export declare function whyNoDesktop(): string | undefined;
