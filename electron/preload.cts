// The only bridge between the page and the desktop shell: window.pipewrightDesktop, exactly the
// DesktopApi, plus the hand-over of the engine host's MessagePort by window message. No channel
// name ever comes from the page. CommonJS because a sandboxed preload cannot be an ES module;
// it may require nothing but 'electron', so the channel names are repeated here (typed against
// ipcChannels.ts, so a mismatch does not compile).
import electron = require('electron');

import type { DesktopApi, FileFilter, MenuCommand } from '../engine/host/desktopApi.js';
import type { IpcChannels, PageMessages } from './ipcChannels.js';

const IPC: IpcChannels = {
  showOpenDialog: 'pipewright:show-open-dialog',
  showSaveDialog: 'pipewright:show-save-dialog',
  documentState: 'pipewright:document-state',
  menuCommand: 'pipewright:menu-command',
  closeRequested: 'pipewright:close-requested',
  closeAnswer: 'pipewright:close-answer',
  hostPortRequest: 'pipewright:host-port-request',
  hostPort: 'pipewright:host-port',
};

const PAGE: PageMessages = {
  hostPort: 'pipewright:host-port',
  hostPortRequest: 'pipewright:host-port-request',
};

const { contextBridge, ipcRenderer } = electron;

/** Copies what the page passed, so nothing but plain strings reaches the main process. */
function filtersOf(filters: readonly FileFilter[]): FileFilter[] {
  return Array.from(filters, (filter) => ({
    name: String(filter.name),
    extensions: Array.from(filter.extensions, String),
  }));
}

let closeListener: (() => Promise<boolean>) | undefined;

const desktop: DesktopApi = {
  showOpenDialog: (options) =>
    ipcRenderer.invoke(IPC.showOpenDialog, {
      title: String(options.title),
      filters: filtersOf(options.filters),
      ...(options.defaultPath === undefined ? {} : { defaultPath: String(options.defaultPath) }),
    }),
  showSaveDialog: (options) =>
    ipcRenderer.invoke(IPC.showSaveDialog, {
      title: String(options.title),
      filters: filtersOf(options.filters),
      ...(options.defaultPath === undefined ? {} : { defaultPath: String(options.defaultPath) }),
    }),
  onMenuCommand(listener) {
    const handle = (_event: Electron.IpcRendererEvent, command: MenuCommand, arg?: string): void =>
      listener(command, arg);
    ipcRenderer.on(IPC.menuCommand, handle);
    return () => {
      ipcRenderer.removeListener(IPC.menuCommand, handle);
    };
  },
  setDocumentState(state) {
    ipcRenderer.send(IPC.documentState, { title: String(state.title), dirty: state.dirty === true });
  },
  onCloseRequested(listener) {
    closeListener = listener;
    return () => {
      if (closeListener === listener) closeListener = undefined;
    };
  },
};

ipcRenderer.on(IPC.closeRequested, async () => {
  let allow = true;
  if (closeListener !== undefined) {
    try {
      allow = (await closeListener()) === true;
    } catch (error) {
      // Closing after a failed prompt could lose the unsaved work the prompt was about.
      console.error('pipewright: the close prompt failed; the window stays open', error);
      allow = false;
    }
  }
  ipcRenderer.send(IPC.closeAnswer, allow);
});

// Host ports. Main sends one per request; one is fetched ahead so the page gets it without a
// round trip. The page gets a port when it has loaded (for a listener set up at start) and for
// each request it posts; a port nobody asked for waits as the spare.
let spare: MessagePort | undefined;
let wanted = 0;
let inFlight = 0;
let pageAsked = false;

function post(port: MessagePort): void {
  window.postMessage(PAGE.hostPort, '*', [port]);
}

function fetchPort(): void {
  inFlight += 1;
  ipcRenderer.send(IPC.hostPortRequest);
}

function demandPort(): void {
  if (spare !== undefined) {
    post(spare);
    spare = undefined;
    return;
  }
  wanted += 1;
  if (wanted > inFlight) fetchPort();
}

ipcRenderer.on(IPC.hostPort, (event) => {
  inFlight = Math.max(0, inFlight - 1);
  const port = event.ports[0];
  if (port === undefined) return;
  if (wanted > 0) {
    wanted -= 1;
    post(port);
  } else {
    spare?.close();
    spare = port;
  }
});

/**
 * Whether a window message is the page itself asking: a frame inside it, another window or an
 * extension can post to this window as well, and would otherwise be handed a port to the
 * engine host (which reads and writes files).
 */
function fromOurPage(event: MessageEvent): boolean {
  return event.source === window && event.origin === window.location.origin;
}

window.addEventListener('message', (event) => {
  if (!fromOurPage(event) || event.data !== PAGE.hostPortRequest) return;
  pageAsked = true;
  demandPort();
});

window.addEventListener('load', () => {
  if (!pageAsked) demandPort();
});

fetchPort();
contextBridge.exposeInMainWorld('pipewrightDesktop', desktop);
