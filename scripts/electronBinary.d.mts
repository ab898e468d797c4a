export declare function findElectron(
  packageDir?: string,
  env?: Readonly<Record<string, string | undefined>>,
): { binary: string; missing?: undefined } | { binary?: undefined; missing: string };
export declare function electronBinary(): string | undefined;
export declare function hasDisplay(): boolean;
export declare function whyNoDesktop(): string | undefined;
