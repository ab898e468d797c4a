// Messages between the desktop shell's main process and the engine host in its utilityProcess
// (over process.parentPort), not seen by the renderer. Types only; both sides import them.

export type ShellToHostMessage =
  /** Carries one MessagePort in the event's ports: serve a page over it. */
  | { readonly type: 'connect' }
  /** A second `npm start -- FILE`, or a file handed over by the OS: tell the pages. */
  | { readonly type: 'openFile'; readonly path: string };

/** recentChanged is also sent once at start, with the list as it is then. */
export type HostToShellMessage = { readonly type: 'recentChanged'; readonly list: readonly string[] };
