// Every command of the app in one table: the menu bar, Electron's application menu and the
// keyboard shortcuts all call these by id, so they cannot drift apart.
import type { MenuCommand } from '../../engine/host/desktopApi.js';
import type { RunController } from '../run/runController';
import type { DesignerStore } from '../store/designerStore';
import type { FileCommands } from './fileCommands';

export interface ViewportCommands {
  fit(): void;
  zoomIn(): void;
  zoomOut(): void;
}

export type RunCommands = Pick<
  RunController,
  | 'run'
  | 'debug'
  | 'runOnFlink'
  | 'pause'
  | 'resume'
  | 'stop'
  | 'step'
  | 'toNextOperator'
  | 'stepBack'
  | 'restart'
>;

export type CommandTable = Record<MenuCommand, () => unknown>;

export function createCommands(
  store: DesignerStore,
  files: FileCommands,
  viewport: ViewportCommands,
  about: () => void,
  runs: RunCommands,
): CommandTable {
  const s = () => store.getState();
  const writeSystemClipboard = (text: string | undefined) => {
    // Best effort: the app keeps its own clipboard, the system one is a convenience.
    if (text !== undefined) navigator.clipboard?.writeText(text).catch(() => undefined);
  };
  return {
    'file.new': () => files.newDocument(),
    'file.open': () => files.open(),
    'file.save': () => files.save(),
    'file.saveAs': () => files.saveAs(),
    'file.import': () => files.importJob(),
    'file.export': () => files.exportJob(),
    'edit.undo': () => s().undo(),
    'edit.redo': () => s().redo(),
    'edit.cut': () => {
      writeSystemClipboard(s().copy());
      s().deleteSelection();
    },
    'edit.copy': () => writeSystemClipboard(s().copy()),
    'edit.paste': () => s().paste(),
    'edit.duplicate': () => s().duplicate(),
    'edit.delete': () => s().deleteSelection(),
    'edit.selectAll': () => s().selectAll(),
    'view.fit': () => viewport.fit(),
    'view.zoomIn': () => viewport.zoomIn(),
    'view.zoomOut': () => viewport.zoomOut(),
    'view.togglePanels': () => s().togglePanels(),
    'view.autoLayout': () => s().autoLayout(),
    'run.run': () => runs.run(),
    'run.debug': () => runs.debug(),
    'run.flink': () => runs.runOnFlink(),
    'run.pause': () => runs.pause(),
    'run.resume': () => runs.resume(),
    'run.stop': () => runs.stop(),
    'run.step': () => runs.step(),
    'run.toNextOperator': () => runs.toNextOperator(),
    'run.stepBack': () => runs.stepBack(),
    'run.restart': () => runs.restart(),
    'help.about': about,
  };
}

export interface Shortcut {
  readonly command: MenuCommand;
  /** As shown in menus; "Mod" is Ctrl, or Cmd on macOS. */
  readonly label: string;
  readonly matches: (e: KeyboardEvent, mod: boolean) => boolean;
  /** Whether it also applies while typing in a text field. */
  readonly inText: boolean;
}

const key = (e: KeyboardEvent, k: string) => e.key.toLowerCase() === k;
/** A function key alone or with Shift. Function keys type nothing, so they apply in text fields too. */
const fKey = (e: KeyboardEvent, m: boolean, k: string, shift: boolean) =>
  !m && !e.altKey && e.shiftKey === shift && e.key === k;

export const SHORTCUTS: readonly Shortcut[] = [
  {
    command: 'edit.redo',
    label: 'Shift+Mod+Z',
    inText: false,
    matches: (e, m) => m && e.shiftKey && key(e, 'z'),
  },
  { command: 'edit.redo', label: 'Mod+Y', inText: false, matches: (e, m) => m && !e.shiftKey && key(e, 'y') },
  { command: 'edit.undo', label: 'Mod+Z', inText: false, matches: (e, m) => m && !e.shiftKey && key(e, 'z') },
  { command: 'edit.copy', label: 'Mod+C', inText: false, matches: (e, m) => m && key(e, 'c') },
  { command: 'edit.cut', label: 'Mod+X', inText: false, matches: (e, m) => m && key(e, 'x') },
  { command: 'edit.paste', label: 'Mod+V', inText: false, matches: (e, m) => m && key(e, 'v') },
  { command: 'edit.duplicate', label: 'Mod+D', inText: false, matches: (e, m) => m && key(e, 'd') },
  { command: 'edit.selectAll', label: 'Mod+A', inText: false, matches: (e, m) => m && key(e, 'a') },
  {
    command: 'edit.delete',
    label: 'Delete',
    inText: false,
    matches: (e, m) => !m && (e.key === 'Delete' || e.key === 'Backspace'),
  },
  {
    command: 'file.saveAs',
    label: 'Shift+Mod+S',
    inText: true,
    matches: (e, m) => m && e.shiftKey && key(e, 's'),
  },
  { command: 'file.save', label: 'Mod+S', inText: true, matches: (e, m) => m && !e.shiftKey && key(e, 's') },
  { command: 'file.open', label: 'Mod+O', inText: true, matches: (e, m) => m && key(e, 'o') },
  {
    command: 'view.fit',
    label: 'F',
    inText: false,
    matches: (e, m) => !m && !e.altKey && !e.shiftKey && key(e, 'f'),
  },
  // F5 is also the browser's reload: handled (and so prevented) wherever the focus is.
  { command: 'run.run', label: 'F5', inText: true, matches: (e, m) => fKey(e, m, 'F5', false) },
  { command: 'run.stop', label: 'Shift+F5', inText: true, matches: (e, m) => fKey(e, m, 'F5', true) },
  { command: 'run.step', label: 'F10', inText: true, matches: (e, m) => fKey(e, m, 'F10', false) },
  { command: 'run.stepBack', label: 'Shift+F10', inText: true, matches: (e, m) => fKey(e, m, 'F10', true) },
  // Shift+F11 is Step Out in code debuggers: finish here, stop where the next one starts. (F11
  // alone is full screen in browsers and in the desktop app's View menu.)
  {
    command: 'run.toNextOperator',
    label: 'Shift+F11',
    inText: true,
    matches: (e, m) => fKey(e, m, 'F11', true),
  },
];

export function shortcutLabel(command: MenuCommand, isMac: boolean): string | undefined {
  const s = SHORTCUTS.find((x) => x.command === command);
  return s?.label.replace('Mod', isMac ? 'Cmd' : 'Ctrl');
}

function isTextTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === 'INPUT' ||
    target.tagName === 'TEXTAREA' ||
    target.tagName === 'SELECT'
  );
}

/** Installs the shortcuts on the window; returns the uninstaller. */
export function installShortcuts(commands: CommandTable, isMac: boolean, enabled: () => boolean): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (!enabled() || e.defaultPrevented) return;
    const mod = isMac ? e.metaKey : e.ctrlKey;
    const inText = isTextTarget(e.target);
    const hit = SHORTCUTS.find((s) => s.matches(e, mod) && (s.inText || !inText));
    if (hit === undefined) return;
    e.preventDefault();
    void commands[hit.command]();
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
