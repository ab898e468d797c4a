export declare const PACKAGES: Record<string, { packages: string[]; message: string }>;
export declare const LAYERS: readonly {
  layer: string;
  folders: string[];
  within?: string;
  mayImport?: string[];
  message?: string;
  pure?: boolean;
  packages?: string[] | 'any';
  refuse?: { group: string[]; message: string }[];
  tests?: string[];
}[];
export declare const FIX_COMMAND: string;
export declare function layerOverrides(): unknown[];
export declare function overridesFor(current: readonly unknown[] | undefined): unknown[];
export declare function biomeJsonIsCurrent(): boolean;
