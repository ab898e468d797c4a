// Setup for the unit project, whose files share a worker thread's realm (vitest.config.ts).
// SES lockdown() freezes that realm for good and tames toLocaleString, so a unit file that
// compiles user code changes what every later file in the worker sees, depending on the order
// vitest picked (CI once failed on "20001" where "20,001" was meant). Such a file belongs in
// vitest.config.ts's NEEDS_OWN_PROCESS; this names it instead of letting a stranger fail.
import { afterAll, expect } from 'vitest';

const lockedBefore = Object.isFrozen(Array.prototype);

afterAll(() => {
  if (lockedBefore) return;
  expect(
    Object.isFrozen(Array.prototype),
    'this file ran SES lockdown() in a worker that unit files share: list it in vitest.config.ts NEEDS_OWN_PROCESS',
  ).toBe(false);
});
