// The file named on the command line: `npm start -- FILE`, a second start while the app runs,
// or the packaged app given a file. Chromium and tools that launch Electron (Playwright adds
// --inspect and --remote-debugging-port) put their switches in argv too, even before the app
// path, so switches are skipped rather than positions counted.
import { resolve } from 'node:path';

/** argv as Electron gives it: [executable, app path, ...] in development, [executable, ...] packaged. */
export function fileFromArgv(argv: readonly string[], cwd: string, packaged: boolean): string | undefined {
  const positional = argv.slice(1).filter((arg) => !arg.startsWith('-'));
  const file = positional[packaged ? 0 : 1];
  return file === undefined ? undefined : resolve(cwd, file);
}
