// The application menu. Every item of ours sends a MenuCommand to the page, which acts on it the
// same way as on its own menu bar in the browser form. Edit items act natively instead while a
// text field has the focus, so undo or paste in the inspector's fields is the field's own.
// Accelerators stay registered: the page handles its shortcuts first and calls preventDefault,
// and a key it leaves alone reaches the menu and comes back as the command.
import { basename, dirname } from 'node:path';
import { Menu, type MenuItemConstructorOptions, type WebContents } from 'electron';
import type { MenuCommand } from '../engine/host/desktopApi.js';

export interface MenuTarget {
  /** The page that receives commands, if a window is open. */
  contents(): WebContents | undefined;
  send(command: MenuCommand, arg?: string): void;
}

export interface MenuOptions {
  readonly recent: readonly string[];
  readonly platform: NodeJS.Platform;
  /** Developer tools only in a development build. */
  readonly packaged: boolean;
  readonly target: MenuTarget;
}

type NativeEdit = 'undo' | 'redo' | 'cut' | 'copy' | 'paste' | 'delete' | 'selectAll';

/** Runs in the page's own world; main cannot see the DOM's focus otherwise. */
const FOCUS_IS_EDITABLE = `(() => {
  const element = document.activeElement;
  return element instanceof HTMLElement && (element.isContentEditable || element.matches('input, textarea, select'));
})()`;

async function focusIsEditable(contents: WebContents): Promise<boolean> {
  try {
    return (await contents.executeJavaScript(FOCUS_IS_EDITABLE)) === true;
  } catch {
    return false;
  }
}

export function buildApplicationMenu(options: MenuOptions): Menu {
  const { target, platform } = options;
  const mac = platform === 'darwin';

  const command = (label: string, id: MenuCommand, accelerator?: string): MenuItemConstructorOptions => ({
    label,
    ...(accelerator === undefined ? {} : { accelerator }),
    click: () => target.send(id),
  });

  const edit = (
    label: string,
    id: MenuCommand,
    native: NativeEdit,
    accelerator?: string,
  ): MenuItemConstructorOptions => ({
    label,
    ...(accelerator === undefined ? {} : { accelerator }),
    click: async () => {
      const contents = target.contents();
      if (contents !== undefined && (await focusIsEditable(contents))) contents[native]();
      else target.send(id);
    },
  });

  const recentItems: MenuItemConstructorOptions[] =
    options.recent.length === 0
      ? [{ label: 'No Recent Files', enabled: false }]
      : options.recent.map((path) => ({
          label: `${basename(path)}  —  ${dirname(path)}`,
          click: () => target.send('file.open', path),
        }));

  const template: MenuItemConstructorOptions[] = [
    ...(mac ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []),
    {
      label: '&File',
      submenu: [
        command('New', 'file.new', 'CmdOrCtrl+N'),
        command('Open…', 'file.open', 'CmdOrCtrl+O'),
        { label: 'Open Recent', submenu: recentItems },
        { type: 'separator' },
        command('Save', 'file.save', 'CmdOrCtrl+S'),
        command('Save As…', 'file.saveAs', 'CmdOrCtrl+Shift+S'),
        { type: 'separator' },
        command('Import…', 'file.import', 'CmdOrCtrl+I'),
        command('Export Job File…', 'file.export', 'CmdOrCtrl+E'),
        ...(mac ? [] : [{ type: 'separator' } as const, { role: 'quit' } as const]),
      ],
    },
    {
      label: '&Edit',
      submenu: [
        edit('Undo', 'edit.undo', 'undo', 'CmdOrCtrl+Z'),
        edit('Redo', 'edit.redo', 'redo', 'CmdOrCtrl+Shift+Z'),
        { type: 'separator' },
        edit('Cut', 'edit.cut', 'cut', 'CmdOrCtrl+X'),
        edit('Copy', 'edit.copy', 'copy', 'CmdOrCtrl+C'),
        edit('Paste', 'edit.paste', 'paste', 'CmdOrCtrl+V'),
        command('Duplicate', 'edit.duplicate', 'CmdOrCtrl+D'),
        // No accelerator: Delete and Backspace belong to whatever has the focus; the canvas handles them itself.
        edit('Delete', 'edit.delete', 'delete'),
        { type: 'separator' },
        edit('Select All', 'edit.selectAll', 'selectAll', 'CmdOrCtrl+A'),
      ],
    },
    {
      label: '&View',
      submenu: [
        command('Fit View', 'view.fit', 'CmdOrCtrl+0'),
        command('Zoom In', 'view.zoomIn', 'CmdOrCtrl+='),
        command('Zoom Out', 'view.zoomOut', 'CmdOrCtrl+-'),
        { type: 'separator' },
        command('Auto Layout', 'view.autoLayout', 'CmdOrCtrl+Shift+L'),
        command('Toggle Panels', 'view.togglePanels', 'CmdOrCtrl+J'),
        ...(options.packaged ? [] : [{ type: 'separator' } as const, { role: 'toggleDevTools' } as const]),
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    {
      label: '&Run',
      submenu: [
        command('Run', 'run.run', 'F5'),
        command('Debug', 'run.debug'),
        command('Run on Flink…', 'run.flink'),
        { type: 'separator' },
        command('Pause', 'run.pause'),
        command('Resume', 'run.resume'),
        command('Stop', 'run.stop', 'Shift+F5'),
        { type: 'separator' },
        command('Step', 'run.step', 'F10'),
        command('Run to Next Operator', 'run.toNextOperator', 'Shift+F11'),
        command('Step Back', 'run.stepBack', 'Shift+F10'),
        { type: 'separator' },
        command('Restart from Checkpoint…', 'run.restart'),
      ],
    },
    ...(mac ? [{ role: 'windowMenu' } satisfies MenuItemConstructorOptions] : []),
    {
      role: 'help',
      submenu: [command('About Pipewright', 'help.about')],
    },
  ];
  return Menu.buildFromTemplate(template);
}
