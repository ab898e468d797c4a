// The designer's window: locked-down web preferences, the title and edited state the page
// reports, its remembered bounds, and the close prompt (asked of the page only while the
// document has unsaved changes).
import { BrowserWindow, type MessagePortMain, screen } from 'electron';
import type { MenuCommand } from '../engine/host/desktopApi.js';
import { APP_PAGE_URL } from './appProtocol.js';
import { IPC } from './ipcChannels.js';
import { loadWindowState, MIN_WINDOW_SIZE, saveWindowState } from './windowState.js';

export interface MainWindowOptions {
  readonly dataDir: string;
  /** dist/electron/preload.cjs */
  readonly preload: string;
  /** Developer tools only in a development build. */
  readonly devTools: boolean;
  /** The user kept the window open when asked about unsaved changes (so a quit in progress stops). */
  readonly onCloseRefused: () => void;
}

const APP_NAME = 'Pipewright';

export class MainWindow {
  readonly window: BrowserWindow;
  private dirty = false;
  private closeConfirmed = false;
  private askingToClose = false;
  private pageGone = false;

  constructor(private readonly options: MainWindowOptions) {
    const state = loadWindowState(
      options.dataDir,
      screen.getAllDisplays().map((display) => display.workArea),
    );
    this.window = new BrowserWindow({
      ...state.bounds,
      minWidth: MIN_WINDOW_SIZE.width,
      minHeight: MIN_WINDOW_SIZE.height,
      title: APP_NAME,
      show: false,
      webPreferences: {
        preload: options.preload,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        devTools: options.devTools,
      },
    });
    this.window.once('ready-to-show', () => {
      if (state.maximized) this.window.maximize();
      this.window.show();
    });
    // The title is ours (document name and edited mark), not the page's <title>.
    this.window.on('page-title-updated', (event) => event.preventDefault());
    this.window.webContents.on('render-process-gone', () => {
      this.pageGone = true;
    });
    this.window.on('close', (event) => this.onClose(event));
    void this.window.loadURL(APP_PAGE_URL);
  }

  setDocumentState(state: { title: string; dirty: boolean }): void {
    this.dirty = state.dirty;
    const name = state.title.trim() === '' ? APP_NAME : `${state.title} — ${APP_NAME}`;
    // macOS shows the edited state as a dot in the close button; elsewhere the title carries it.
    if (process.platform === 'darwin') {
      this.window.setTitle(name);
      this.window.setDocumentEdited(state.dirty);
    } else {
      this.window.setTitle(state.dirty ? `• ${name}` : name);
    }
  }

  answerClose(allow: boolean): void {
    if (!this.askingToClose) return;
    this.askingToClose = false;
    if (allow) {
      this.closeConfirmed = true;
      this.window.close();
    } else {
      this.options.onCloseRefused();
    }
  }

  sendCommand(command: MenuCommand, arg?: string): void {
    this.window.webContents.send(IPC.menuCommand, command, ...(arg === undefined ? [] : [arg]));
  }

  sendHostPort(port: MessagePortMain): void {
    this.window.webContents.postMessage(IPC.hostPort, null, [port]);
  }

  focus(): void {
    if (this.window.isMinimized()) this.window.restore();
    this.window.focus();
  }

  private onClose(event: Electron.Event): void {
    if (this.dirty && !this.closeConfirmed && !this.pageGone) {
      event.preventDefault();
      if (!this.askingToClose) {
        this.askingToClose = true;
        this.window.webContents.send(IPC.closeRequested);
      }
      return;
    }
    saveWindowState(this.options.dataDir, {
      bounds: this.window.getNormalBounds(),
      maximized: this.window.isMaximized(),
    });
  }
}
