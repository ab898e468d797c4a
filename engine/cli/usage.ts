// The command line as the contract defines it; parsing errors are usage errors (exit 2).
import { parseArgs } from 'node:util';

export const USAGE = `Usage:
  pipewright run JOB.job.json [--state-dir DIR] [--checkpoint-dir DIR]
                              [--restore latest|ID] [--metrics FILE] [--quiet]
  pipewright validate JOB.job.json [--json]
  pipewright --help | --version

run       runs the job to its end (bounded sources) or until SIGINT/SIGTERM
validate  prints every problem of the job file (JSON lines with --json)

Options of run:
  --state-dir DIR       keyed state (default: .pipewright/NAME/state beside the job file)
  --checkpoint-dir DIR  checkpoints (default: .pipewright/NAME/checkpoints beside the job file)
  --restore latest|ID   resume from the newest completed checkpoint, or from checkpoint ID
  --metrics FILE        write per-operator and per-subtask counters as JSON lines every second
  --quiet               print only errors

Exit status: 0 done, 1 the job is invalid or failed, 2 usage error.`;

export class UsageError extends Error {}

export type Command =
  | { name: 'help' }
  | { name: 'version' }
  | {
      name: 'run';
      job: string;
      stateDir?: string;
      checkpointDir?: string;
      restore?: string;
      metrics?: string;
      quiet: boolean;
    }
  | { name: 'validate'; job: string; json: boolean };

export function parseCommand(argv: readonly string[]): Command {
  if (argv.length === 0) throw new UsageError('no command given');
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') return { name: 'help' };
  if (command === '--version' || command === '-v') return { name: 'version' };
  if (command !== 'run' && command !== 'validate') throw new UsageError(`unknown command "${command}"`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options:
        command === 'run'
          ? {
              'state-dir': { type: 'string' },
              'checkpoint-dir': { type: 'string' },
              restore: { type: 'string' },
              metrics: { type: 'string' },
              quiet: { type: 'boolean', default: false },
              help: { type: 'boolean', short: 'h', default: false },
            }
          : {
              json: { type: 'boolean', default: false },
              help: { type: 'boolean', short: 'h', default: false },
            },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { name: 'help' };
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? `${command} needs a job file` : `${command} takes one job file`,
    );
  }
  const job = positionals[0]!;
  if (command === 'validate') return { name: 'validate', job, json: values.json === true };
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const restore = text('restore');
  if (restore !== undefined && restore !== 'latest' && !/^[0-9]+$/.test(restore)) {
    throw new UsageError(`--restore takes "latest" or a checkpoint id (a number), not "${restore}"`);
  }
  return {
    name: 'run',
    job,
    stateDir: text('state-dir'),
    checkpointDir: text('checkpoint-dir'),
    restore,
    metrics: text('metrics'),
    quiet: values.quiet === true,
  };
}
