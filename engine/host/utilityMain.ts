// The engine host inside Electron: the desktop shell forks this module as a utilityProcess with
// `--data-dir DIR [--initial-file FILE]`, then hands it one MessagePort per page over
// process.parentPort. Keeping the engine out of the main process keeps a long job or a crash in
// user code from freezing the window and its menus.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHostService } from './hostService.js';
import { type ParentPortLike, serveMessagePort } from './messagePortTransport.js';
import { examplesDir, findPackageRoot, packageVersion } from './packageRoot.js';
import { readRecentList } from './recentFiles.js';
import type { HostToShellMessage, ShellToHostMessage } from './shellMessages.js';

const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
if (parentPort === undefined) {
  process.stderr.write(
    'pipewright: utilityMain is the engine host of the desktop app and runs only inside Electron; use `npm run web` for the browser form.\n',
  );
  process.exit(2);
}
const shell: ParentPortLike = parentPort;

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { 'data-dir': { type: 'string' }, 'initial-file': { type: 'string' } },
});
const dataDir = values['data-dir'];
if (dataDir === undefined) throw new Error('utilityMain: --data-dir is required');

function tellShell(message: HostToShellMessage): void {
  shell.postMessage(message);
}

const root = findPackageRoot();
const host = createHostService({
  transport: 'messageport',
  version: packageVersion(root),
  dataDir,
  runsDir: join(dataDir, 'runs'),
  examplesDir: examplesDir(root),
  ...(values['initial-file'] === undefined ? {} : { initialFile: values['initial-file'] }),
  onRecentChanged: (list) => tellShell({ type: 'recentChanged', list }),
});

shell.on('message', (event) => {
  const message = event.data as Partial<ShellToHostMessage> | null;
  const port = event.ports[0];
  if (message?.type === 'connect' && port !== undefined) serveMessagePort(port, host);
  else if (message?.type === 'openFile' && typeof message.path === 'string') {
    host.emit('file.openRequested', { path: message.path });
  }
});

// The shell builds its Open Recent menu from this; it does not read the host's files itself.
tellShell({ type: 'recentChanged', list: await readRecentList(dataDir) });
