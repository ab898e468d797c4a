// Entry point of the renderer, the same in Electron and in the browser form: only the way to
// the host differs, and that is decided here, once.
import '@xyflow/react/dist/style.css';
import './app/app.css';
import { createRoot } from 'react-dom/client';
import type { DesktopApi } from '../engine/host/desktopApi.js';
import { App } from './app/App';
import { createHostClient } from './host/hostClient';
import { browserHostUrl, electronPortChannel, webSocketChannel } from './host/hostTransports';
import { createDesignerStore } from './store/designerStore';

declare global {
  interface Window {
    pipewrightDesktop?: DesktopApi;
  }
}

async function start() {
  const root = createRoot(document.getElementById('root')!);
  try {
    const desktop = window.pipewrightDesktop;
    const channel = desktop
      ? await electronPortChannel()
      : await webSocketChannel(browserHostUrl(window.location));
    const host = createHostClient(channel);
    const info = await host.request('host.info', {});
    const store = createDesignerStore();
    if (info.initialFile !== undefined) {
      // Read before the first render, so a file given on the command line is the first thing
      // drawn (not the start screen); a failure is left to the app, which reports it.
      const file = await host.request('file.read', { path: info.initialFile }).catch(() => undefined);
      if (file !== undefined) {
        store.getState().loadText(file.path, file.text);
        void host.request('recent.add', { path: file.path }).catch(() => undefined);
      }
    }
    root.render(<App host={host} desktop={desktop} info={info} store={store} />);
  } catch (error) {
    root.render(
      <div role="alert" className="fatal">
        Pipewright cannot start: {error instanceof Error ? error.message : String(error)}
      </div>,
    );
  }
}

void start();
