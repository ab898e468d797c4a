// A run started by npm (npx, npm exec, npm run) is the child of a shell npm started (`sh -c`).
// A signal sent to npx is forwarded to that shell only, which dies of it: npx exits 128+N at
// once and this process is left running, with no one to stop it (`timeout 60 npx pipewright run`
// would run on forever). So, under npm, the launcher's end stops the run cleanly, as SIGTERM would.
const LOOK_EVERY_MS = 250;

/** Calls onGone once if the process that started this one ends first; returns the way to stop watching. */
export function watchLauncher(onGone: () => void): () => void {
  if (process.env.npm_lifecycle_event === undefined) return () => {};
  const launcher = process.ppid;
  const timer = setInterval(() => {
    // An orphan is adopted (by init or a subreaper): its parent id changes.
    if (process.ppid === launcher) return;
    clearInterval(timer);
    onGone();
  }, LOOK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
