// The menus of the browser form's menu bar; Electron builds its native menu from the same ids.
import type { MenuCommand } from '../../engine/host/desktopApi.js';

export interface MenuItemModel {
  readonly command: MenuCommand;
  readonly label: string;
}

export interface MenuModel {
  readonly label: string;
  readonly items: readonly (MenuItemModel | 'separator')[];
}

export const MENUS: readonly MenuModel[] = [
  {
    label: 'File',
    items: [
      { command: 'file.new', label: 'New' },
      { command: 'file.open', label: 'Open…' },
      'separator',
      { command: 'file.save', label: 'Save' },
      { command: 'file.saveAs', label: 'Save As…' },
      'separator',
      { command: 'file.import', label: 'Import…' },
      { command: 'file.export', label: 'Export job file…' },
    ],
  },
  {
    label: 'Edit',
    items: [
      { command: 'edit.undo', label: 'Undo' },
      { command: 'edit.redo', label: 'Redo' },
      'separator',
      { command: 'edit.cut', label: 'Cut' },
      { command: 'edit.copy', label: 'Copy' },
      { command: 'edit.paste', label: 'Paste' },
      { command: 'edit.duplicate', label: 'Duplicate' },
      { command: 'edit.delete', label: 'Delete' },
      'separator',
      { command: 'edit.selectAll', label: 'Select All' },
    ],
  },
  {
    label: 'View',
    items: [
      { command: 'view.fit', label: 'Fit view' },
      { command: 'view.zoomIn', label: 'Zoom in' },
      { command: 'view.zoomOut', label: 'Zoom out' },
      { command: 'view.autoLayout', label: 'Auto layout' },
      'separator',
      { command: 'view.togglePanels', label: 'Toggle panels' },
    ],
  },
  {
    label: 'Run',
    items: [
      { command: 'run.run', label: 'Run' },
      { command: 'run.debug', label: 'Debug' },
      { command: 'run.flink', label: 'Run on Flink…' },
      'separator',
      { command: 'run.pause', label: 'Pause' },
      { command: 'run.resume', label: 'Resume' },
      { command: 'run.stop', label: 'Stop' },
      'separator',
      { command: 'run.step', label: 'Step' },
      { command: 'run.toNextOperator', label: 'Run to next operator' },
      { command: 'run.stepBack', label: 'Step back' },
      'separator',
      { command: 'run.restart', label: 'Restart from checkpoint…' },
    ],
  },
  { label: 'Help', items: [{ command: 'help.about', label: 'About Pipewright' }] },
];
