// Who started a server of `npm run services`: the user and the checkout whose script started
// it, and which process that was, kept in the server's folder. `stop` stops a server only when
// this record says this user started it from this checkout: the services folder
// (/var/tmp/pipewright-services) is shared by every checkout on the machine, and a pid file
// alone would let one engineer's `stop` end the servers another one's tests use.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this script belongs to (its repository's folder). */
const CHECKOUT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RECORD = 'started-by.json';

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/**
 * When the process started, in clock ticks since boot (/proc/PID/stat, field 22): with the pid,
 * it names one process, not whichever later gets the same pid. Undefined off Linux.
 */
function startTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

/** Notes in `dir` that this user started the server `pid` from this checkout. */
export function recordStarter(dir, pid) {
  const record = { user: userInfo().username, uid: uid(), checkout: CHECKOUT, pid, since: startTicks(pid) };
  writeFileSync(join(dir, RECORD), `${JSON.stringify(record)}\n`);
}

export function forgetStarter(dir) {
  rmSync(join(dir, RECORD), { force: true });
}

/**
 * Whether this user started the server `pid` running from `dir` from this checkout: `{ mine: true }`,
 * or `{ mine: false, why }`, why it is left alone, in words.
 */
export function starterOf(dir, pid) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(dir, RECORD), 'utf8'));
  } catch {
    record = undefined;
  }
  if (record === undefined || record.pid !== pid || record.since !== startTicks(pid)) {
    return { mine: false, why: `pid ${pid} runs from ${dir}, but nothing says this checkout started it` };
  }
  if (record.checkout !== CHECKOUT) {
    return {
      mine: false,
      why: `started from ${record.checkout} by ${record.user} (pid ${pid}), not from this checkout`,
    };
  }
  if (record.uid !== uid()) {
    return { mine: false, why: `started by ${record.user} (pid ${pid}), not by ${userInfo().username}` };
  }
  return { mine: true };
}
