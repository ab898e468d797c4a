// The names of the desktop shell's IPC channels and of the two window messages between the
// preload and the page. The sandboxed preload cannot load this module at run time (it may only
// require 'electron'), so it repeats the names and is type-checked against these objects.

export const IPC = {
  /** invoke: showOpenDialog options -> path | undefined */
  showOpenDialog: 'pipewright:show-open-dialog',
  /** invoke: showSaveDialog options -> path | undefined */
  showSaveDialog: 'pipewright:show-save-dialog',
  /** send: { title, dirty } */
  documentState: 'pipewright:document-state',
  /** main -> page: (command, arg?) */
  menuCommand: 'pipewright:menu-command',
  /** main -> page: the window is about to close with unsaved changes */
  closeRequested: 'pipewright:close-requested',
  /** send: boolean, the page's answer to closeRequested */
  closeAnswer: 'pipewright:close-answer',
  /** send: the page wants a connection to the engine host */
  hostPortRequest: 'pipewright:host-port-request',
  /** main -> preload, with a MessagePort: a connection to the engine host */
  hostPort: 'pipewright:host-port',
} as const;

export type IpcChannels = typeof IPC;

/**
 * window.postMessage names between the preload and the page, since a MessagePort cannot cross
 * contextBridge. The preload posts `hostPort` with the port in the event's ports once the page
 * has loaded, and again for each `hostPortRequest` the page posts (e.g. to reconnect after the
 * engine host restarted).
 */
export const PAGE_MESSAGES = {
  hostPort: 'pipewright:host-port',
  hostPortRequest: 'pipewright:host-port-request',
} as const;

export type PageMessages = typeof PAGE_MESSAGES;
