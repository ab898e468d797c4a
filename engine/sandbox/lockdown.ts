// SES lockdown for the whole process: it freezes the shared JavaScript intrinsics and tames
// the Function constructors, which is what makes a Compartment a sandbox. It cannot be
// undone and runs at most once per process (vitest therefore runs each test file in its
// own forked process).
import 'ses';
import { pinUserStackTrace } from './userCodeError.js';

let lockedDown = false;

/**
 * Locks the process down if nothing has yet. Call before compiling user code or handing
 * objects to it; later calls do nothing. Modules that patch built-ins must be loaded before
 * the first call (classic-level and zod do not patch anything and load fine after it).
 */
export function ensureLockdown(): void {
  if (lockedDown) return;
  const realmError = globalThis.Error;
  try {
    lockdown({
      // 'unsafe' keeps `error.stack` readable, which is how a user's throw is traced to a
      // line of their code. The stack text is not a capability: SES still denies user code
      // Error.prepareStackTrace and the V8 call sites it would hand out. Its frames are
      // userStackTrace's (pinned below): only the user's own where the error passed their code.
      errorTaming: 'unsafe',
      stackFiltering: 'verbose',
      // Lets code (ours, libraries', users') assign properties such as `toString` or
      // `constructor` on its own objects although the inherited ones are now frozen.
      overrideTaming: 'severe',
      consoleTaming: 'unsafe',
      domainTaming: 'unsafe',
      // SES would otherwise add process listeners that turn an uncaught exception into
      // exit(-1) and merely log unhandled rejections. The engine and the CLI own those
      // policies (exit status 1 on failure), so Node's own behaviour is kept.
      errorTrapping: 'none',
      unhandledRejectionTrapping: 'none',
    });
    pinUserStackTrace(realmError);
  } catch (err) {
    // Another copy of this module (or of ses) locked down first; the realm is locked either way.
    if (!/SES_ALREADY_LOCKED_DOWN|SES_MULTIPLE_INSTANCES/.test(String(err))) throw err;
  }
  lockedDown = true;
}

/**
 * Freezes `value` and everything reachable from it (prototypes included), after locking
 * down. Everything the engine hands to user code besides JSON data goes through this (or
 * through `harden` after ensureLockdown): ctx and its methods (userContext.ts), every state
 * handle ctx.state gives out, the debugger's included (keyedState.ts), and console
 * (userCode.ts). It must keep its host powers in closures or #private fields, never in
 * properties: user code can read and walk any property. Records handed to user code are JSON
 * data of its own and are not hardened.
 */
export function hardenForUser<T>(value: T): T {
  ensureLockdown();
  return harden(value);
}
