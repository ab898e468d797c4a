// `npm test`'s tests (docs/testing.md): three projects, each run the way its files need.
//  - unit: pure functions (the job model, validation, windows and transactions as logic, the
//    renderer's logic). No SES, no child processes: threads, and files share a worker's modules.
//  - engine: the real engine, LevelDB, the CLI, the servers. SES lockdown() freezes the
//    intrinsics of the process that runs it, so every file gets a process of its own.
//  - e2e: the designer in Chromium, one Chromium for the run (e2e/browserServer.ts).
// The soak tier (npm run test:soak) is vitest.soak.config.ts: the files named *.soak.test.ts.
import { defineConfig } from 'vitest/config';
import { testFiles } from './test/testFiles.js';

const UNIT = [
  /^engine\/(graph|metrics)\//,
  /^engine\/operators\/(window|transaction|nexmark)\//,
  /^renderer\//,
];
/** Beside pure code, yet it runs SES to compare with it, which freezes the worker it runs in. */
const NEEDS_OWN_PROCESS = ['engine/graph/codeParse.test.ts', 'engine/operators/window/codeAggregate.test.ts'];

const files = testFiles(['engine', 'test', 'renderer', 'e2e'], import.meta.dirname).filter(
  (f) => !f.endsWith('.soak.test.ts'),
);
const isUnit = (f: string) => UNIT.some((r) => r.test(f)) && !NEEDS_OWN_PROCESS.includes(f);

export default defineConfig({
  test: {
    // Two files at a time. vitest's default, one less than the cores, is one here: files that
    // wait (on a CLI run, a server, Chromium) left the other core idle. Many files also spawn a
    // CLI with worker threads of its own, so more than the cores only makes each file slower.
    maxWorkers: 2,
    // A test's own budget follows its work (docs/testing.md, "Time"); these only catch a hang.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: files.filter(isUnit),
          pool: 'threads',
          isolate: false,
          setupFiles: ['test/unitRealmGuard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'engine',
          include: files.filter((f) => !isUnit(f) && !f.startsWith('e2e/')),
          pool: 'forks',
          isolate: true,
          // One line naming the connector tests that skip for want of a server (npm run services).
          globalSetup: ['test/connectors/skippedNotice.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: files.filter((f) => f.startsWith('e2e/')),
          pool: 'forks',
          isolate: true,
          globalSetup: ['e2e/browserServer.ts'],
        },
      },
    ],
  },
});
