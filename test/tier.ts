// Which tier of tests this process runs, and what that decides. `npm test` is the tier a
// contributor runs between two edits: fixed seeds (a failure replays as it was), data just big
// enough to show each behaviour. `npm run test:soak` (PIPEWRIGHT_TEST_TIER=soak, set by
// vitest.soak.config.ts) is what is long by nature: random seeds, printed so a failure can be
// replayed, and the full sizes. Environment variables move either:
//   PIPEWRIGHT_TEST_SEED=N   the seed of the kill times and random jobs (both tiers)
//   PIPEWRIGHT_FUZZ_SEED=N   the seed of the fuzzers
//   PIPEWRIGHT_FUZZ_RUNS=N   how many inputs each fuzzer tries
import { randomInt } from 'node:crypto';

export const SOAK = process.env.PIPEWRIGHT_TEST_TIER === 'soak';

/** The seed `npm test` uses when none is given: any fixed number does; this one is the date the tiers began. */
export const FIXED_SEED = 20261205;

function seedFrom(variable: string): number {
  const fromEnv = process.env[variable];
  if (fromEnv !== undefined && fromEnv !== '') {
    const seed = Number(fromEnv);
    if (!Number.isInteger(seed)) throw new Error(`${variable} must be an integer, not ${fromEnv}`);
    return seed;
  }
  return SOAK ? randomInt(1, 2 ** 31 - 1) : FIXED_SEED;
}

/**
 * The seed of this test file's kill times and random jobs: PIPEWRIGHT_TEST_SEED if set, else fixed
 * in `npm test` and random in the soak tier. Printed either way, with how to replay it.
 */
export function testSeed(what = 'kill times'): number {
  const seed = seedFrom('PIPEWRIGHT_TEST_SEED');
  console.log(`seed ${seed} (PIPEWRIGHT_TEST_SEED=${seed} repeats the ${what})`);
  return seed;
}

/** The fuzzers' seed and number of inputs: PIPEWRIGHT_FUZZ_SEED and _RUNS, else by tier. */
export function fuzzSettings(soakRuns: number, quickRuns: number): { seed: number; runs: number } {
  const runs = process.env.PIPEWRIGHT_FUZZ_RUNS;
  return {
    seed: seedFrom('PIPEWRIGHT_FUZZ_SEED'),
    runs: runs !== undefined && runs !== '' ? Number(runs) : SOAK ? soakRuns : quickRuns,
  };
}
