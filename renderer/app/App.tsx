// The app: wires the store, the host and the shell's menu to one command table, and shows the
// start screen or the workbench.
import { useEffect, useMemo } from 'react';
import type { DesktopApi, MenuCommand } from '../../engine/host/desktopApi.js';
import type { HostInfo } from '../../engine/protocol/protocol.js';
import { viewportController } from '../canvas/viewportController';
import { DialogHost } from '../dialogs/DialogHost';
import { createDialogService } from '../dialogs/dialogService';
import type { HostClient } from '../host/hostClient';
import { runClient } from '../run/runClient';
import { RunProvider } from '../run/runContext';
import { createRunController } from '../run/runController';
import { createRunStore } from '../run/runStore';
import { DesignerProvider, useDesigner } from '../store/designerContext';
import type { DesignerStore } from '../store/designerStore';
import { documentTitle, isDirty } from '../store/selectors';
import { keepTrust } from '../trust/trustKeeper';
import { ServicesProvider } from './appServices';
import { createCommands, installShortcuts } from './commands';
import { DocumentNotice } from './DocumentNotice';
import { createFileCommands } from './fileCommands';
import { createInputFileChecks } from './inputFileChecks';
import { StartScreen } from './StartScreen';
import { Workbench } from './Workbench';

export interface AppProps {
  readonly host: HostClient;
  readonly desktop: DesktopApi | undefined;
  readonly info: HostInfo;
  readonly store: DesignerStore;
}

const IS_MAC = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform);

export function App({ host, desktop, info, store }: AppProps) {
  const dialogs = useMemo(() => createDialogService(), []);
  const inputFiles = useMemo(() => createInputFileChecks(store, host), [store, host]);
  const files = useMemo(
    () =>
      createFileCommands({
        store,
        host,
        desktop,
        info,
        dialogs,
        report: (title, error) =>
          void dialogs.message(title, error instanceof Error ? error.message : String(error)),
        checkInputFiles: () => void inputFiles.check(),
      }),
    [store, host, desktop, info, dialogs, inputFiles],
  );
  const runs = useMemo(() => {
    const runStore = createRunStore();
    const controller = createRunController({
      runs: runStore,
      designer: store,
      client: runClient(host),
      save: files.save,
      message: dialogs.message,
      checkInputFiles: () => void inputFiles.check(),
    });
    return { store: runStore, controller };
  }, [store, host, files, dialogs, inputFiles]);
  useEffect(() => () => runs.controller.dispose(), [runs]);
  // Whether the open job is trusted, as the host has it (restricted mode: docs/security.md).
  useEffect(() => keepTrust(store, host), [store, host]);
  const commands = useMemo(
    () =>
      createCommands(
        store,
        files,
        viewportController,
        () => {
          void dialogs.message(
            'About Pipewright',
            `Pipewright ${info.version}\nEngine host over ${info.transport === 'websocket' ? 'WebSocket' : 'a MessagePort'}.`,
          );
        },
        runs.controller,
      ),
    [store, files, dialogs, info, runs],
  );
  const run = useMemo(
    () => (command: MenuCommand) => {
      const state = store.getState();
      // Editing commands need a drawable document; file commands work from the start screen too.
      if (
        !command.startsWith('file.') &&
        command !== 'help.about' &&
        (!state.open || state.draft === undefined)
      ) {
        if (command !== 'view.togglePanels') return;
      }
      void commands[command]();
    },
    [store, commands],
  );

  useEffect(
    () =>
      installShortcuts(
        commands,
        IS_MAC,
        () =>
          store.getState().open &&
          dialogs.store.getState().request === undefined &&
          runs.store.getState().prompt === undefined,
      ),
    [commands, store, dialogs, runs],
  );

  useEffect(() => {
    // main.tsx opens the initial file before the first render; this reports why it could not,
    // or has its input files checked, as opening does.
    if (info.initialFile !== undefined && !store.getState().open) void files.openPath(info.initialFile);
    else void inputFiles.check();
    return host.on('file.openRequested', ({ path }) => void files.openRecent(path));
  }, [host, files, info, store, inputFiles]);

  useEffect(() => {
    if (desktop === undefined) {
      // The browser asks before leaving a page with unsaved changes; it cannot offer "Save".
      const onBeforeUnload = (e: BeforeUnloadEvent) => {
        if (isDirty(store.getState())) e.preventDefault();
      };
      window.addEventListener('beforeunload', onBeforeUnload);
      return () => window.removeEventListener('beforeunload', onBeforeUnload);
    }
    const offMenu = desktop.onMenuCommand((command, arg) => {
      if (command === 'file.open' && arg !== undefined) void files.openRecent(arg);
      else run(command);
    });
    const offClose = desktop.onCloseRequested(() => files.confirmDiscard());
    return () => {
      offMenu();
      offClose();
    };
  }, [desktop, files, run, store]);

  return (
    <ServicesProvider services={{ host, desktop, info }}>
      <DesignerProvider store={store}>
        <RunProvider services={runs}>
          <TitleSync desktop={desktop} />
          <Screen files={files} run={run} nativeMenu={desktop !== undefined} />
          <DialogHost dialogs={dialogs} />
        </RunProvider>
      </DesignerProvider>
    </ServicesProvider>
  );
}

function Screen({
  files,
  run,
  nativeMenu,
}: {
  files: ReturnType<typeof createFileCommands>;
  run: (command: MenuCommand) => void;
  nativeMenu: boolean;
}) {
  const open = useDesigner((s) => s.open);
  return open ? (
    <>
      <Workbench run={run} isMac={IS_MAC} nativeMenu={nativeMenu} />
      <DocumentNotice />
    </>
  ) : (
    <StartScreen files={files} />
  );
}

/** Keeps the window title (and Electron's edited mark and close prompt) in step with the document. */
function TitleSync({ desktop }: { desktop: DesktopApi | undefined }) {
  const open = useDesigner((s) => s.open);
  const title = useDesigner(documentTitle);
  const dirty = useDesigner(isDirty);
  useEffect(() => {
    const text = open ? `${dirty ? '● ' : ''}${title} — Pipewright` : 'Pipewright';
    document.title = text;
    desktop?.setDocumentState({ title: open ? title : 'Pipewright', dirty });
  }, [open, title, dirty, desktop]);
  return null;
}
