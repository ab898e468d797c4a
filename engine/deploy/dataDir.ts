// Where the app keeps its own small files (the recent list, the window's bounds, the trusted jobs
// and folders). The desktop shell, the browser form and the CLI use the same folder, so all see the
// same recent files and trust the same jobs; it is the folder Electron would pick as userData for
// an app named "pipewright".
import os from 'node:os';
import { join, resolve } from 'node:path';

export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (env.PIPEWRIGHT_DATA_DIR) return resolve(env.PIPEWRIGHT_DATA_DIR);
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'pipewright');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'pipewright');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'pipewright');
}
