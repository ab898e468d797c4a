// The file named on the command line: `npm start -- FILE`, a second start while the app runs,
// or the packaged app given a file. Chromium may add its own switches to argv, so options are
// skipped rather than counted.
import { resolve } from 'node:path';

/** argv as Electron gives it: [executable, app path, ...] in development, [executable, ...] packaged. */
export function fileFromArgv(argv: readonly string[], cwd: string, packaged: boolean): string | undefined {
  const file = argv.slice(packaged ? 1 : 2).find((arg) => !arg.startsWith('-'));
  return file === undefined ? undefined : resolve(cwd, file);
}
