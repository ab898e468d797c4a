// The desktop app's hardening, checked without the Electron binary (which the machines this is
// built on cannot download): the fuses electron-builder flips when it packages the app, the
// preload's check of who posts it a window message, and what every web contents refuses.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import vm from 'node:vm';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { transformWithOxc } from 'vite';
import { describe, expect, it, vi } from 'vitest';
import { repoRoot } from './cliHarness.js';

vi.mock('electron', () => ({ net: {}, protocol: {} }));

describe('the packaged app', () => {
  it('has its fuses set as electron-builder reads and validates its configuration', async () => {
    const config = await getConfig(repoRoot, null, null);
    await validateConfiguration(config, { isEnabled: false, add() {} } as unknown as Parameters<
      typeof validateConfiguration
    >[1]);
    expect(config.electronFuses).toEqual({
      // The executable can be neither a plain Node, nor be given code or a debugger from outside.
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      // It runs only the app.asar it was packaged with.
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
    // OnlyLoadAppFromAsar and the integrity check need the app packed into an archive.
    expect(config.asar ?? true).not.toBe(false);
  });
});

const PAGE_ORIGIN = 'pipewright://app';
const PORT_REQUEST = 'pipewright:host-port-request';
const PORT = 'pipewright:host-port';

/** electron/preload.cts run as Electron runs it, with stand-ins for `electron` and `window`. */
async function loadPreload() {
  const source = await readFile(join(repoRoot, 'electron', 'preload.cts'), 'utf8');
  // Types stripped only: the preload is CommonJS already, as tsc emits it for Electron (oxc
  // marks the output as a module with an empty export, which tsc's CommonJS has not).
  const stripped = await transformWithOxc(source, 'preload.cts', { lang: 'ts' });
  const code = stripped.code.replace(/^export \{\};$/m, '');
  const ipcListeners = new Map<string, (event: { ports: unknown[] }) => void>();
  const messageListeners: ((event: unknown) => void)[] = [];
  const posted: { message: unknown; ports: unknown[] }[] = [];
  const window = {
    location: { origin: PAGE_ORIGIN },
    addEventListener(type: string, listener: (event: unknown) => void) {
      if (type === 'message') messageListeners.push(listener);
    },
    postMessage(message: unknown, _targetOrigin: string, ports: unknown[] = []) {
      posted.push({ message, ports });
    },
  };
  const electron = {
    contextBridge: { exposeInMainWorld() {} },
    ipcRenderer: {
      send() {},
      invoke() {},
      removeListener() {},
      on(channel: string, listener: (event: { ports: unknown[] }) => void) {
        ipcListeners.set(channel, listener);
      },
    },
  };
  const module = { exports: {} };
  vm.runInNewContext(code, {
    module,
    exports: module.exports,
    window,
    console,
    require(id: string) {
      if (id !== 'electron') throw new Error(`the preload may require only electron, not ${id}`);
      return electron;
    },
  });
  return {
    window,
    posted,
    /** Main sends a port to the engine host; with nobody asking yet, the preload keeps it. */
    portFromMain(port: object) {
      ipcListeners.get(PORT)!({ ports: [port] });
    },
    message(event: { source: unknown; origin: string; data: unknown }) {
      for (const listener of messageListeners) listener(event);
    },
  };
}

describe("the preload's window messages", () => {
  it('hands the host port only to the page itself asking', async () => {
    const preload = await loadPreload();
    const port = { name: 'port to the engine host' };
    preload.portFromMain(port);
    const frame = { name: 'an iframe of the page' };
    preload.message({ source: frame, origin: PAGE_ORIGIN, data: PORT_REQUEST });
    preload.message({ source: preload.window, origin: 'https://example.com', data: PORT_REQUEST });
    preload.message({ source: null, origin: PAGE_ORIGIN, data: PORT_REQUEST });
    preload.message({ source: preload.window, origin: PAGE_ORIGIN, data: 'something else' });
    expect(preload.posted).toEqual([]);

    preload.message({ source: preload.window, origin: PAGE_ORIGIN, data: PORT_REQUEST });
    expect(preload.posted).toEqual([{ message: PORT, ports: [port] }]);
  });
});

describe('every web contents', () => {
  it('refuses navigation in any frame, redirects, webviews and new windows', async () => {
    const { lockDownContents } = await import('../electron/security.js');
    const listeners = new Map<string, (event: { preventDefault(): void; url?: string }) => void>();
    let openHandler: (() => { action: string }) | undefined;
    const contents = {
      on(event: string, listener: (event: { preventDefault(): void }) => void) {
        listeners.set(event, listener);
        return contents;
      },
      setWindowOpenHandler(handler: () => { action: string }) {
        openHandler = handler;
      },
    };
    lockDownContents(contents as unknown as Parameters<typeof lockDownContents>[0]);
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview']) {
      const event = { preventDefault: vi.fn(), url: 'https://example.com/', isMainFrame: false };
      expect(listeners.get(name), name).toBeDefined();
      listeners.get(name)!(event);
      expect(event.preventDefault, name).toHaveBeenCalled();
    }
    expect(openHandler?.()).toEqual({ action: 'deny' });
  });
});
