// Messages between the main process and the engine host in its utilityProcess (over
// process.parentPort). The host declares them in engine/host/shellMessages.ts, which electron/
// may not import; test/shellCopies.test.ts fails if the two declarations differ.

export type ShellToHostMessage =
  /** Carries one MessagePort in the event's ports: serve a page over it. */
  | { readonly type: 'connect' }
  /** A second `npm start -- FILE`, or a file handed over by the OS: tell the pages. */
  | { readonly type: 'openFile'; readonly path: string };

/** recentChanged is also sent once at start, with the list as it is then. */
export type HostToShellMessage = { readonly type: 'recentChanged'; readonly list: readonly string[] };
