// `npm run test:soak`'s tests (docs/testing.md): what is long by nature. The files named
// *.soak.test.ts (kill loops over many random points, restores across many parallelisms, 2M
// timers, state several times the heap, the services script end to end, the outage tests), and
// the fuzzers again at full size. Random seeds, printed (test/tier.ts). Every file gets a process
// of its own, as in the engine project of vitest.config.ts.
import { defineConfig } from 'vitest/config';
import { testFiles } from './test/testFiles.js';

/** Files of `npm test` that the soak tier runs again with its own sizes and seeds. */
const AGAIN_AT_FULL_SIZE = [
  'engine/graph/validation/validateJobFuzz.test.ts',
  'engine/host/hostProtocolFuzz.test.ts',
  'test/flinkRunnerJava.test.ts',
  'test/manyTimers.test.ts',
  'test/parallelEquivalence.test.ts',
];

const soakFiles = testFiles(['engine', 'test', 'e2e'], import.meta.dirname).filter((f) =>
  f.endsWith('.soak.test.ts'),
);

export default defineConfig({
  test: {
    name: 'soak',
    include: [...soakFiles, ...AGAIN_AT_FULL_SIZE],
    env: { PIPEWRIGHT_TEST_TIER: 'soak' },
    pool: 'forks',
    isolate: true,
    testTimeout: 900_000,
    hookTimeout: 900_000,
    globalSetup: ['test/connectors/skippedNotice.ts'],
  },
});
