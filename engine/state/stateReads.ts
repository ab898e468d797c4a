// Reads of keyed state that user code awaits: a scan over a map or list, which on LevelDB waits
// for a flush and an iterator. They are the engine's own bounded I/O, so the executor waits for
// a call that awaits them in place (see runtime/asyncCalls.ts), keeping the order of deliveries
// the same from run to run, while a call that waits on the world steps aside.

let pending = 0;
let waiters: (() => void)[] = [];

/** Counts `read` as in flight until it settles. */
export function trackStateRead<T>(read: Promise<T>): Promise<T> {
  pending++;
  return read.finally(() => {
    pending--;
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  });
}

/** State reads in flight on this thread. */
export function stateReadsPending(): number {
  return pending;
}

/** Resolves when the next tracked read settles. */
export function nextStateRead(): Promise<void> {
  return new Promise((resolve) => waiters.push(resolve));
}
