// The main process's side of window.pipewrightDesktop. Each handler first checks that the
// message comes from the top frame of our own page in our window; anything else is ignored (or
// refused, for invoke). Arguments are checked too: the page is ours, but a compromised page
// must not get more than the API it was given.
import { dialog, type IpcMainEvent, type IpcMainInvokeEvent, ipcMain } from 'electron';
import { isAppUrl } from './appProtocol.js';
import { IPC } from './ipcChannels.js';
import type { MainWindow } from './mainWindow.js';

export interface DesktopIpcOptions {
  /** The window whose page may use the API, if one is open. */
  readonly window: () => MainWindow | undefined;
  /** A page asked for a connection to the engine host. */
  readonly onHostPortRequest: (window: MainWindow) => void;
}

function senderWindow(
  event: IpcMainEvent | IpcMainInvokeEvent,
  current: MainWindow | undefined,
): MainWindow | undefined {
  if (current === undefined || event.sender !== current.window.webContents) return undefined;
  const frame = event.senderFrame;
  if (frame === null || frame.parent !== null || !isAppUrl(frame.url)) return undefined;
  return current;
}

function text(value: unknown, what: string, max = 1000): string {
  if (typeof value !== 'string' || value.length > max)
    throw new Error(`${what} must be a string of at most ${max} characters`);
  return value;
}

function filtersOf(value: unknown): Electron.FileFilter[] {
  if (!Array.isArray(value) || value.length > 20) throw new Error('filters must be a list of at most 20');
  return value.map((filter: { name?: unknown; extensions?: unknown }) => {
    if (!Array.isArray(filter?.extensions) || filter.extensions.length > 20) {
      throw new Error('a filter needs a list of at most 20 extensions');
    }
    return {
      name: text(filter.name, 'a filter name', 100),
      extensions: filter.extensions.map((extension) => text(extension, 'an extension', 40)),
    };
  });
}

function refuse(): never {
  throw new Error('Refused: not sent by the Pipewright page');
}

export function registerDesktopIpc(options: DesktopIpcOptions): void {
  ipcMain.handle(
    IPC.showOpenDialog,
    async (event, raw: { title?: unknown; filters?: unknown; defaultPath?: unknown }) => {
      const window = senderWindow(event, options.window()) ?? refuse();
      const result = await dialog.showOpenDialog(window.window, {
        title: text(raw?.title, 'title'),
        filters: filtersOf(raw?.filters),
        ...(raw?.defaultPath === undefined
          ? {}
          : { defaultPath: text(raw.defaultPath, 'defaultPath', 4096) }),
        properties: ['openFile'],
      });
      return result.canceled ? undefined : result.filePaths[0];
    },
  );

  ipcMain.handle(
    IPC.showSaveDialog,
    async (event, raw: { title?: unknown; filters?: unknown; defaultPath?: unknown }) => {
      const window = senderWindow(event, options.window()) ?? refuse();
      const result = await dialog.showSaveDialog(window.window, {
        title: text(raw?.title, 'title'),
        filters: filtersOf(raw?.filters),
        ...(raw?.defaultPath === undefined
          ? {}
          : { defaultPath: text(raw.defaultPath, 'defaultPath', 4096) }),
        properties: ['showOverwriteConfirmation', 'createDirectory'],
      });
      return result.canceled || result.filePath === '' ? undefined : result.filePath;
    },
  );

  ipcMain.on(IPC.documentState, (event, raw: { title?: unknown; dirty?: unknown }) => {
    const window = senderWindow(event, options.window());
    if (window === undefined || typeof raw?.title !== 'string' || typeof raw.dirty !== 'boolean') return;
    window.setDocumentState({ title: raw.title.slice(0, 200), dirty: raw.dirty });
  });

  ipcMain.on(IPC.closeAnswer, (event, allow: unknown) => {
    senderWindow(event, options.window())?.answerClose(allow === true);
  });

  ipcMain.on(IPC.hostPortRequest, (event) => {
    const window = senderWindow(event, options.window());
    if (window !== undefined) options.onHostPortRequest(window);
  });
}
