// The param shapes the connector kinds share (Kafka, PostgreSQL, Redis), worded once. A
// connection param may name an environment variable as "${env:NAME}", resolved when the job runs
// (never stored in the job file); a missing variable is an error naming it.
import { z } from 'zod';
import { nonNegativeMs } from './paramTypes.js';

/** `${env:NAME}`, alone or inside a longer string: NAME is a POSIX environment variable name. */
export const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

export const connectionString = (what: string) =>
  z
    .string()
    .min(1)
    .describe(`${what}; may name an environment variable as "\${env:NAME}", read when the job runs.`);

export const retryTimeoutMs = nonNegativeMs
  .optional()
  .describe(
    'How long to keep retrying, with backoff, while the server does not answer, before the job fails (default 60000).',
  );

export const onBadRecord = z
  .enum(['fail', 'skip'])
  .optional()
  .describe('A record that cannot be read (not JSON): fail the job (default) or skip it, counted.');

/** The retry timeout a connector uses when its params give none. */
export const DEFAULT_RETRY_TIMEOUT_MS = 60_000;
