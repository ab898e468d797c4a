// Types of bench/profileAreas.mjs for the TypeScript that tests it.
export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: CallFrame;
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}
export interface ProfileSummary {
  readonly busyMs: number;
  readonly areas: readonly { readonly area: string; readonly ms: number }[];
  readonly top: readonly { readonly name: string; readonly ms: number }[];
}
export const AREAS: readonly string[];
export function areaOf(callFrame: CallFrame): string | undefined;
export function profileAreas(profiles: readonly CpuProfile[], options?: { top?: number }): ProfileSummary;
export function profileDirAreas(dir: string, options?: { top?: number }): ProfileSummary;
export function profileTable(
  rows: readonly { readonly label: string; readonly profile?: ProfileSummary }[],
): string[];
