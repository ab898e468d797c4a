// The desktop shell's main process: one window on the pipewright://app page, the application
// menu, native dialogs, and the engine host in a utilityProcess connected to the page by a
// MessagePort. It holds no engine logic: files, templates and recent files are the host's.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, Menu, session } from 'electron';
import type { MenuCommand } from '../engine/host/desktopApi.js';
import { registerAppScheme, serveRenderer } from './appProtocol.js';
import { fileFromArgv } from './commandLine.js';
import { registerDesktopIpc } from './desktopIpc.js';
import { HostProcess } from './hostProcess.js';
import { MainWindow } from './mainWindow.js';
import { buildApplicationMenu } from './menu.js';
import { lockDownContents, restrictPermissions } from './security.js';

const here = dirname(fileURLToPath(import.meta.url));
/** This file is dist/electron/main.js, in the checkout and inside app.asar alike. */
const root = join(here, '..', '..');
// The folder the browser form uses too (engine/deploy/dataDir.ts), so both see the same recent
// files: Electron's appData is the same per-platform folder that module picks.
const dataDir = process.env.PIPEWRIGHT_DATA_DIR
  ? resolve(process.env.PIPEWRIGHT_DATA_DIR)
  : join(app.getPath('appData'), 'pipewright');

app.setName('Pipewright');
app.setPath('userData', dataDir);
app.enableSandbox();
registerAppScheme();

let mainWindow: MainWindow | undefined;
let host: HostProcess | undefined;
let quitting = false;
/** Whether the current window's page has its connection to the host, so an event will reach it. */
let pageConnected = false;
let recent: readonly string[] = [];
/** Files asked for before a page was there to receive them. */
const pendingOpens: string[] = [];
let initialFile = fileFromArgv(process.argv, process.cwd(), app.isPackaged);

function sendCommand(command: MenuCommand, arg?: string): void {
  if (mainWindow !== undefined) mainWindow.sendCommand(command, arg);
  // macOS keeps the menu with no window open: a recent file still opens; any other command gets
  // a fresh window, which is what it would have acted on.
  else if (command === 'file.open' && arg !== undefined) openFile(arg);
  else if (app.isReady()) openWindow();
}

function setMenu(): void {
  Menu.setApplicationMenu(
    buildApplicationMenu({
      recent,
      platform: process.platform,
      packaged: app.isPackaged,
      target: { contents: () => mainWindow?.window.webContents, send: sendCommand },
    }),
  );
}

function openWindow(): void {
  const window = new MainWindow({
    dataDir,
    preload: join(here, 'preload.cjs'),
    devTools: !app.isPackaged,
    onCloseRefused: () => {
      quitting = false;
    },
  });
  window.window.on('closed', () => {
    if (mainWindow !== window) return;
    mainWindow = undefined;
    pageConnected = false;
  });
  mainWindow = window;
  pageConnected = false;
}

function openFile(path: string): void {
  if (host !== undefined && pageConnected) host.openFile(path);
  else pendingOpens.push(path);
  if (mainWindow === undefined && app.isReady()) openWindow();
  mainWindow?.focus();
}

if (!app.requestSingleInstanceLock()) {
  // Another instance has the window; it was handed our argv in its 'second-instance' event.
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory) => {
    const file = fileFromArgv(argv, workingDirectory, app.isPackaged);
    if (file !== undefined) openFile(file);
    else if (mainWindow === undefined) openWindow();
    else mainWindow.focus();
  });

  // macOS hands over files (Finder, dock) by event, possibly before the app is ready.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (!app.isReady() && initialFile === undefined) initialFile = path;
    else openFile(path);
  });

  app.on('web-contents-created', (_event, contents) => lockDownContents(contents));
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin' || quitting) app.quit();
  });
  app.on('will-quit', () => host?.stop());

  app.whenReady().then(() => {
    serveRenderer(join(root, 'dist', 'renderer'));
    restrictPermissions(session.defaultSession);
    host = new HostProcess({
      entry: join(root, 'dist', 'engine', 'host', 'utilityMain.js'),
      dataDir,
      ...(initialFile === undefined ? {} : { initialFile }),
      onRecentChanged: (list) => {
        recent = list;
        setMenu();
      },
      onFailed: (reason) => dialog.showErrorBox('Pipewright', `${reason}\nFiles cannot be opened or saved.`),
    });
    host.start();
    registerDesktopIpc({
      window: () => mainWindow,
      onHostPortRequest: (window) => {
        if (host === undefined) return;
        window.sendHostPort(host.connect());
        pageConnected = true;
        for (const path of pendingOpens.splice(0)) host.openFile(path);
      },
    });
    setMenu();
    openWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) openWindow();
    });
  });
}
