// The command line as the contract defines it; parsing errors are usage errors (exit 2), said
// in one line with the usage of the command they are about.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export const RUN_USAGE = `Usage: pipewright run JOB.job.json [--state-dir DIR] [--checkpoint-dir DIR]
                                   [--restore latest|ID] [--threads N]
                                   [--metrics FILE] [--quiet] [--trust]

Runs the job until its sources end, or until Ctrl-C (SIGINT) or SIGTERM: that takes a final
checkpoint, publishes what it covers and exits 0; a second one stops at once (exit 130).
Progress is shown on a terminal: per operator, records in and out, the rate, and how busy and
how backpressured (held back by what comes after it) it was over the last second.

Options:
  --state-dir DIR       keyed state (default: .pipewright/NAME/state beside the job file)
  --checkpoint-dir DIR  checkpoints (default: .pipewright/NAME/checkpoints beside the job file)
  --restore latest|ID   resume from the newest complete checkpoint, or from checkpoint ID
  --threads N           threads to spread the subtasks over (default: settings.threads, else
                        the number of cores; 1 runs the whole job on one thread)
  --metrics FILE        write per-operator and per-subtask counters as JSON lines every second,
                        with per subtask the ms of the last second it was busy, backpressured, idle
  --quiet               print only errors
  --trust               trust the job: let it name files outside its folder and read
                        environment variables (docs/security.md)
  -h, --help            print this help

Exit status: 0 done or stopped, 1 the job is invalid or failed (or another run has its
folders), 2 usage error, 130 stopped at once.`;

export const VALIDATE_USAGE = `Usage: pipewright validate JOB.job.json [--json] [--strict]

Checks the job file without running it and prints every problem at once, each naming its
operator or edge (and the line and column, for a problem in an operator's code). An input
file that is not there is a warning: the job is valid, and the run would fail reading it.

Options:
  --json      one JSON object per problem per line (file, code, message, path, ids), then
              one per warning ("severity": "warning"); nothing for a valid job without one
  --strict    a warning makes the exit status 1, as a problem does
  -h, --help  print this help

Exit status: 0 valid (warnings or not), 1 not valid, or a warning with --strict (or the file
cannot be read), 2 usage error, 130 interrupted (Ctrl-C).`;

export const FLINK_USAGE = `Usage: pipewright flink JOB.job.json [--cluster URL] [--parallelism N]
                                     [--savepoint-dir DIR] [--from-savepoint PATH]
                                     [--quiet] [--trust]

Runs the job on Apache Flink: the runner jar (flink/, built with Maven the first time) builds
the job as Flink's DataStream job, and each subtask of a map, filter, flatMap or process runs
its code in a Node worker beside it, with keyed state in Flink's RocksDB. Without --cluster, in
an embedded MiniCluster; Ctrl-C ends it at once. With --cluster, on that Flink session cluster
through its REST API (the jar uploaded once), followed with a status line until it ends; Ctrl-C
stops it with a savepoint (a second one cancels it). A kind, param or edge Flink cannot run yet
is refused before anything starts, one line each (docs/flink.md). Needs java (17) and mvn.

Options:
  --cluster URL        the cluster's REST address, e.g. http://localhost:8081
  --parallelism N      run every operator at parallelism N (default: each operator's own)
  --savepoint-dir DIR  where Ctrl-C's savepoint goes on a cluster (default: the cluster's
                       state.savepoints.dir, else .pipewright/NAME/flink/savepoints)
  --from-savepoint PATH
                       start from this savepoint (the one a stop printed, or any of the
                       job's): the job goes on where it stopped, and each sink.jsonl file
                       goes on from what the stopped run wrote
  --quiet              print only errors
  --trust              trust the job: let it name files outside its folder and read
                       environment variables (docs/security.md)
  -h, --help           print this help

Exit status: 0 done (or stopped with a savepoint), 1 the job is invalid, cannot run on Flink
or failed, 2 usage error, 130 stopped at once (Ctrl-C, SIGINT or SIGTERM).`;

export const USAGE = `Usage:
  pipewright run JOB.job.json [--state-dir DIR] [--checkpoint-dir DIR]
                              [--restore latest|ID] [--threads N]
                              [--metrics FILE] [--quiet] [--trust]
  pipewright validate JOB.job.json [--json] [--strict]
  pipewright flink JOB.job.json [--cluster URL] [--parallelism N]
                                [--savepoint-dir DIR] [--from-savepoint PATH]
                                [--quiet] [--trust]
  pipewright run --help | validate --help | flink --help
  pipewright --help | --version

run       runs the job to its end (bounded sources) or until Ctrl-C, SIGINT or SIGTERM
validate  prints every problem of the job file (JSON lines with --json), and a warning for
          an input file that is not there (--strict: exit 1 for it)
flink     runs the job on Apache Flink, embedded or on a cluster: pipewright flink --help

Options of run:
  --state-dir DIR       keyed state (default: .pipewright/NAME/state beside the job file)
  --checkpoint-dir DIR  checkpoints (default: .pipewright/NAME/checkpoints beside the job file)
  --restore latest|ID   resume from the newest complete checkpoint, or from checkpoint ID
  --threads N           threads to spread the subtasks over (default: settings.threads, else
                        the number of cores; 1 runs the whole job on one thread)
  --metrics FILE        write per-operator and per-subtask counters as JSON lines every second,
                        with per subtask the ms of the last second it was busy, backpressured, idle
  --quiet               print only errors
  --trust               trust the job: let it name files outside its folder and read
                        environment variables (docs/security.md)

Exit status: 0 done or stopped, 1 the job is invalid or failed (or another run has its
folders), 2 usage error, 130 stopped at once (a second Ctrl-C, SIGINT or SIGTERM).`;

export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage to print after the message: the command's own when the error is about one. */
    readonly usage: string = USAGE,
  ) {
    super(message);
  }
}

type CommandName = 'run' | 'validate' | 'flink';

export type Command =
  | { name: 'help'; usage: string }
  | { name: 'version' }
  | {
      name: 'run';
      job: string;
      stateDir?: string;
      checkpointDir?: string;
      restore?: string;
      metrics?: string;
      /** Absent: the job's settings.threads, else the number of cores. */
      threads?: number;
      quiet: boolean;
      /** --trust: the job may name files outside its folder and read environment variables. */
      trust: boolean;
    }
  | {
      name: 'flink';
      job: string;
      /** --parallelism: every operator's, in place of the job's. */
      parallelism?: number;
      /** --cluster: a Flink session cluster's REST address; absent: an embedded MiniCluster. */
      cluster?: string;
      savepointDir?: string;
      /** --from-savepoint: a savepoint (path or URI) the job starts from. */
      fromSavepoint?: string;
      quiet: boolean;
      trust: boolean;
    }
  | {
      name: 'validate';
      job: string;
      json: boolean;
      /** --strict: a warning (an input file that is not there) fails validation as a problem does. */
      strict: boolean;
    };

/** Each command's options; an option with a placeholder takes a value. */
const OPTIONS: Readonly<Record<CommandName, Readonly<Record<string, { value?: string }>>>> = {
  run: {
    'state-dir': { value: 'DIR' },
    'checkpoint-dir': { value: 'DIR' },
    restore: { value: 'latest|ID' },
    threads: { value: 'N' },
    metrics: { value: 'FILE' },
    quiet: {},
    trust: {},
    help: {},
  },
  validate: { json: {}, strict: {}, help: {} },
  flink: {
    cluster: { value: 'URL' },
    parallelism: { value: 'N' },
    'savepoint-dir': { value: 'DIR' },
    'from-savepoint': { value: 'PATH' },
    quiet: {},
    trust: {},
    help: {},
  },
};

const USAGES: Readonly<Record<CommandName, string>> = {
  run: RUN_USAGE,
  validate: VALIDATE_USAGE,
  flink: FLINK_USAGE,
};

/**
 * The command's options and positionals. Node's strict parser words its errors for a developer
 * (and leaves a quote open), so it only splits the arguments here and each is judged below.
 */
function parseOptions(command: CommandName, args: readonly string[]) {
  const spec = OPTIONS[command];
  const usage = USAGES[command];
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, { value }] of Object.entries(spec)) {
    options[name] = {
      type: value === undefined ? 'boolean' : 'string',
      ...(name === 'help' ? { short: 'h' } : {}),
    };
  }
  const { tokens } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: false,
    tokens: true,
    options,
  });
  const values: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const option = spec[token.name];
    if (option === undefined) throw new UsageError(`unknown option ${token.rawName}`, usage);
    if (option.value === undefined) {
      if (token.inlineValue === true) throw new UsageError(`${token.rawName} takes no value`, usage);
      values[token.name] = true;
    } else {
      // `--metrics --quiet` is a missing value, not a file named --quiet (write --metrics=--quiet);
      // `--threads -1` is a value, a wrong one, said as such below.
      const optionNext = token.inlineValue === false && /^-(?!\d)/.test(token.value ?? '');
      if (token.value === undefined || optionNext) {
        throw new UsageError(`${token.rawName} needs a value: ${token.rawName} ${option.value}`, usage);
      }
      values[token.name] = token.value;
    }
  }
  return { values, positionals, usage };
}

/** `--threads N`, `--parallelism N`: a whole number, 1 or more (written in digits: not 1e3, not 0x10). */
function wholeCount(
  option: string,
  noun: string,
  text: string | undefined,
  usage: string,
): number | undefined {
  if (text === undefined) return undefined;
  const count = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(count) || count < 1) {
    throw new UsageError(`${option} takes a whole number of ${noun}, 1 or more, not "${text}"`, usage);
  }
  return count;
}

export function parseCommand(argv: readonly string[]): Command {
  if (argv.length === 0) throw new UsageError('no command given');
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') return { name: 'help', usage: USAGE };
  if (command === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { name: 'help', usage: USAGE };
    if (topic === 'run' || topic === 'validate' || topic === 'flink')
      return { name: 'help', usage: USAGES[topic] };
    throw new UsageError(`no help on "${topic}": the commands are run, validate and flink`);
  }
  if (command === '--version' || command === '-v') return { name: 'version' };
  if (command !== 'run' && command !== 'validate' && command !== 'flink') {
    throw new UsageError(`unknown command "${command}"`);
  }
  const { values, positionals, usage } = parseOptions(command, rest);
  if (values.help === true) return { name: 'help', usage };
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? `${command} needs a job file` : `${command} takes one job file`,
      usage,
    );
  }
  const job = positionals[0]!;
  if (command === 'validate') {
    return { name: 'validate', job, json: values.json === true, strict: values.strict === true };
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  if (command === 'flink') {
    const parallelism = wholeCount('--parallelism', 'subtasks', text('parallelism'), usage);
    const cluster = text('cluster');
    if (cluster !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(cluster)) {
      throw new UsageError(
        `--cluster takes the cluster's REST address, as http://HOST:PORT, not "${cluster}"`,
        usage,
      );
    }
    const savepointDir = text('savepoint-dir');
    if (savepointDir !== undefined && cluster === undefined) {
      throw new UsageError('--savepoint-dir is for a run on a cluster (--cluster URL)', usage);
    }
    return {
      name: 'flink',
      job,
      ...(parallelism === undefined ? {} : { parallelism }),
      ...(cluster === undefined ? {} : { cluster }),
      ...(savepointDir === undefined ? {} : { savepointDir }),
      ...(text('from-savepoint') === undefined ? {} : { fromSavepoint: text('from-savepoint') }),
      quiet: values.quiet === true,
      trust: values.trust === true,
    };
  }
  const restore = text('restore');
  if (restore !== undefined && restore !== 'latest' && !/^[0-9]+$/.test(restore)) {
    throw new UsageError(`--restore takes "latest" or a checkpoint id (a number), not "${restore}"`, usage);
  }
  const threads = wholeCount('--threads', 'threads', text('threads'), usage);
  return {
    name: 'run',
    job,
    stateDir: text('state-dir'),
    checkpointDir: text('checkpoint-dir'),
    restore,
    metrics: text('metrics'),
    threads,
    quiet: values.quiet === true,
    trust: values.trust === true,
  };
}
