// What a desktop shell adds on top of the host protocol: native dialogs, the application menu
// and the window's close prompt. Electron's preload exposes exactly this object as
// `window.pipewrightDesktop`; in the browser form it is absent and the renderer uses its own
// dialogs and menu bar. Types only: the renderer and the preload both import it.

/** Commands the application menu sends; the renderer's menu bar and shortcuts use the same ids. */
export const MENU_COMMANDS = [
  'file.new',
  'file.open',
  'file.save',
  'file.saveAs',
  'file.import',
  'file.export',
  'edit.undo',
  'edit.redo',
  'edit.cut',
  'edit.copy',
  'edit.paste',
  'edit.duplicate',
  'edit.delete',
  'edit.selectAll',
  'view.fit',
  'view.zoomIn',
  'view.zoomOut',
  'view.togglePanels',
  'view.autoLayout',
  'run.run',
  'run.debug',
  'run.flink',
  'run.pause',
  'run.resume',
  'run.stop',
  'run.step',
  'run.toNextOperator',
  'run.stepBack',
  'run.restart',
  'help.about',
] as const;

export type MenuCommand = (typeof MENU_COMMANDS)[number];

export interface FileFilter {
  readonly name: string;
  readonly extensions: readonly string[];
}

export interface DesktopApi {
  /** `defaultPath`: the folder to start in. */
  showOpenDialog(options: {
    title: string;
    defaultPath?: string;
    filters: readonly FileFilter[];
  }): Promise<string | undefined>;
  /** `defaultPath`: the folder and name to start with. */
  showSaveDialog(options: {
    title: string;
    defaultPath?: string;
    filters: readonly FileFilter[];
  }): Promise<string | undefined>;
  /** Menu commands, including "open this recent file". Returns an unsubscribe function. */
  onMenuCommand(listener: (command: MenuCommand, arg?: string) => void): () => void;
  /** Keeps the window title, the macOS edited dot and the close prompt in step with the document. */
  setDocumentState(state: { title: string; dirty: boolean }): void;
  /** Asked by the shell before the window closes with unsaved changes; resolve true to allow. */
  onCloseRequested(listener: () => Promise<boolean>): () => void;
}
