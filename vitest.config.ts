import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'test/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    // SES lockdown() freezes the intrinsics of the process that runs it, so every test file gets its own.
    pool: 'forks',
    isolate: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One line naming the connector tests that skip for want of a server (npm run services).
    globalSetup: ['test/connectors/skippedNotice.ts'],
  },
});
