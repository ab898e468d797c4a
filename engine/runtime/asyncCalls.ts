// Telling a call that waits on the job's own work from one that waits on the world. An `async`
// function that only awaits values, promises the job resolves itself, or a scan of its keyed
// state settles while the microtask queue drains or once the engine's reads are done: waiting
// for it in place keeps the order of deliveries the same from run to run. One still pending
// after that waits on a timer or a socket, whose time no run can reproduce anyway: there the
// subtask steps aside, and the others go on meanwhile.
import { nextStateRead, stateReadsPending } from '../state/stateReads.js';

/** Microtask turns tried before paying for a macrotask: an `async` function settles in a few. */
const QUICK_TURNS = 8;

const ignore = () => {};

/** True when `pending` settles (it may reject) without waiting on anything but the engine. */
export async function settlesInPlace(pending: Promise<unknown>): Promise<boolean> {
  let settled = false;
  const mark = () => {
    settled = true;
  };
  pending.then(mark, mark);
  for (;;) {
    for (let turn = 0; turn < QUICK_TURNS && !settled; turn++) await undefined;
    if (settled) return true;
    // setImmediate runs after the whole microtask queue has drained.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (settled) return true;
    if (stateReadsPending() === 0) return false;
    await Promise.race([pending.then(ignore, ignore), nextStateRead()]);
  }
}
