// `pipewright run | validate`: the engine headless (main.ts is the entry). Exit 0 done, 1 invalid
// job or failed run, 2 usage error. Messages name the operator, edge or line; never an engine
// stack trace.

import { delimiter, resolve } from 'node:path';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import { findCheckpoint } from '../checkpoint/findCheckpoint.js';
import { checkInputFiles } from '../deploy/inputFileCheck.js';
import { type BackgroundRun, openRun } from '../deploy/openRun.js';
import { defaultRunDirs } from '../deploy/runDirs.js';
import { inputFilesOf } from '../graph/inputFiles.js';
import { JobError } from '../graph/jobError.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { Problem } from '../graph/problem.js';
import { WaitLines } from '../metrics/waitNotices.js';
import { loadKindModule } from '../operators/kindFactories.js';
import { flinkCommand } from './flinkCommand.js';
import { readJobFile, readValidJobFile } from './jobFile.js';
import { trustDecision } from './jobTrust.js';
import { watchLauncher } from './launcherWatch.js';
import { MetricsFile } from './metricsFile.js';
import { formatCount, ProgressDisplay } from './progressDisplay.js';
import { TerminalKeys } from './terminalKeys.js';
import { type Command, parseCommand, UsageError } from './usage.js';

const VERSION = '0.1.0';

/**
 * Kind modules beyond the built-in kinds (see loadKindModule), named by PIPEWRIGHT_KIND_MODULES
 * as absolute paths or URLs separated by the platform's path delimiter: validation and the run's
 * threads then know them. Returns the specifiers, or a line saying which one could not load.
 */
async function loadKindModules(): Promise<{ modules: string[] } | { error: string }> {
  const modules = (process.env.PIPEWRIGHT_KIND_MODULES ?? '').split(delimiter).filter((m) => m !== '');
  for (const specifier of modules) {
    try {
      await loadKindModule(specifier);
    } catch (error) {
      return { error: `cannot load the kind module ${specifier}: ${(error as Error)?.message ?? error}` };
    }
  }
  return { modules };
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

function complain(text: string): void {
  process.stderr.write(`pipewright: ${text}\n`);
}

/**
 * `file: line:column: message (path)`, each part said once: a position the message already
 * gives in words (malformed JSON's) is not repeated in front, and `$`, the whole file, names
 * nothing the file name does not.
 */
function problemLine(file: string, problem: Problem): string {
  const { line, column = 1, message, path } = problem;
  const said = line !== undefined && message.includes(`(line ${line}, column ${column})`);
  const at = line === undefined || said ? '' : `${line}:${column}: `;
  return `${file}: ${at}${message}${path === '$' ? '' : ` (${path})`}`;
}

async function validate(command: Extract<Command, { name: 'validate' }>): Promise<number> {
  const kinds = await loadKindModules();
  if ('error' in kinds) {
    complain(kinds.error);
    return 1;
  }
  const read = readJobFile(command.job);
  if (read.unreadable !== undefined) {
    if (command.json) {
      say(
        JSON.stringify({
          file: command.job,
          code: 'unreadable',
          message: read.unreadable,
          path: '$',
          ids: [],
        }),
      );
    } else complain(read.unreadable);
    return 1;
  }
  const { problems } = read;
  for (const problem of problems) {
    if (command.json) say(JSON.stringify({ file: command.job, ...problem }));
    else complain(problemLine(command.job, problem));
  }
  // The validator is pure and cannot look at files: an input that is not there would fail the
  // run, so it is said as the designer says it, a warning (exit 1 only with --strict).
  const warnings =
    read.document === undefined
      ? []
      : await checkInputFiles(resolve(command.job), inputFilesOf(read.document));
  for (const { code, severity, message, path, ids } of warnings) {
    if (command.json) say(JSON.stringify({ file: command.job, severity, code, message, path, ids }));
    else complain(`${command.job}: warning: ${message} (${path})`);
  }
  const failed = problems.length > 0 || (command.strict && warnings.length > 0);
  if (!failed && !command.json) {
    const warned = warnings.length === 0 ? '' : `, with ${plural(warnings.length, 'warning')}`;
    say(`${command.job}: valid${warned}`);
  }
  return failed ? 1 : 0;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

async function run(command: Extract<Command, { name: 'run' }>): Promise<number> {
  const kinds = await loadKindModules();
  if ('error' in kinds) {
    complain(kinds.error);
    return 1;
  }
  const read = readValidJobFile(command.job, complain, (problem) => problemLine(command.job, problem));
  if (read === undefined) return 1;
  const { job } = read;
  const defaults = defaultRunDirs(command.job, job.name);
  const jobDir = defaults.jobDir;
  const trust = await trustDecision({
    jobFile: command.job,
    text: read.text,
    job,
    jobDir,
    trust: command.trust,
  });
  if (trust.warning !== undefined) complain(trust.warning);
  if ('refusal' in trust) {
    complain(trust.refusal);
    return 1;
  }
  const stateDir = resolve(command.stateDir ?? defaults.stateDir);
  const checkpointDir = resolve(command.checkpointDir ?? defaults.checkpointDir);
  let restore: CheckpointMetadata | undefined;
  if (command.restore !== undefined) {
    const wanted = command.restore === 'latest' ? 'latest' : Number(command.restore);
    const found = await findCheckpoint(checkpointDir, wanted, (text) => {
      if (!command.quiet) complain(text);
    });
    if (found.error !== undefined) {
      complain(found.error);
      return 1;
    }
    restore = found.checkpoint;
  }

  let running: BackgroundRun | undefined;
  const metricsFile =
    command.metrics === undefined
      ? undefined
      : new MetricsFile(resolve(command.metrics), () => running?.metrics());
  try {
    metricsFile?.start();
  } catch (error) {
    complain((error as Error).message);
    return 1;
  }
  const progress = new ProgressDisplay(() => running?.metrics());
  const waits = new WaitLines();
  /** What the CLI says during the run goes above the progress table, where a redraw cannot cover it. */
  const tell = (text: string) => progress.note(`pipewright: ${text}`);
  const jobRun = await openRun(job, {
    jobDir,
    confined: trust.confined,
    stateDir,
    checkpointDir,
    oneThread: 'ownThread',
    ...(command.threads === undefined ? {} : { threads: command.threads }),
    ...(kinds.modules.length === 0 ? {} : { kindModules: kinds.modules }),
    ...(restore === undefined ? {} : { restore }),
    onCheckpoint: (event) => metricsFile?.event(event),
    onLongCall: (text) => {
      if (!command.quiet) tell(`${text} (Ctrl-C stops it)`);
    },
    // A connector waiting for its server says so, from the job's opening on, and when it goes on.
    onWait: (wait) => {
      const line = command.quiet ? undefined : waits.next(wait);
      if (line !== undefined) tell(line);
    },
    // A job of thousands of subtasks takes seconds to open: say how far it has come.
    onOpening: (opened, total) => {
      if (!command.quiet) progress.opened(job.name, opened, total);
    },
  });
  running = jobRun;
  // From the start of the run's thread: a signal while the job opens stops it as soon as it is open.
  let stops = 0;
  const onStop = (what: string) => {
    stops++;
    if (stops > 1) {
      tell(`${what} again: stopping at once`);
      void jobRun.kill().finally(() => {
        keys.stop();
        process.exit(130);
      });
      return;
    }
    if (!command.quiet) tell(`${what}: stopping cleanly (again to stop at once)`);
    jobRun.stop();
  };
  const onSignal = (signal: NodeJS.Signals) => onStop(signal);
  const keys = new TerminalKeys(() => onStop('Ctrl-C'));
  const unwatch = watchLauncher(() => onStop('the npm process that started this run has ended'));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  keys.start();
  const stopListening = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    keys.stop();
    unwatch();
  };
  try {
    await jobRun.opened;
  } catch (error) {
    stopListening();
    return failed(error);
  }
  if (!command.quiet) progress.start();
  try {
    const summary = await jobRun.run();
    progress.stop();
    metricsFile?.finish(summary.stopped ? 'stopped' : 'finished');
    if (!command.quiet) {
      const m = summary.metrics;
      // A source's records in are those it read; its records out count once per edge they left on.
      const sources = m.operators.filter((o) => findKind(o.kind)?.role === 'source');
      const read = sources.reduce((n, o) => n + o.recordsIn, 0);
      const seconds = m.elapsedMs / 1000;
      say(
        `${summary.stopped ? 'stopped' : 'done'}: job "${m.job}", ${formatCount(read)} records from the sources in ${seconds.toFixed(2)} s (${formatCount(Math.round(read / Math.max(seconds, 0.001)))}/s)`,
      );
    }
    return 0;
  } catch (error) {
    progress.stop();
    metricsFile?.finish('failed');
    return failed(error);
  } finally {
    stopListening();
  }
}

function failed(error: unknown): number {
  if (error instanceof JobError) complain(error.message);
  else complain(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  return 1;
}

/** Runs the command `argv` says; resolves to the process's exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    complain(error.message);
    process.stderr.write(`${error.usage}\n`);
    return 2;
  }
  switch (command.name) {
    case 'help':
      say(command.usage);
      return 0;
    case 'version':
      say(VERSION);
      return 0;
    case 'validate':
      return validate(command);
    case 'run':
      return run(command);
    case 'flink': {
      const kinds = await loadKindModules();
      if ('error' in kinds) {
        complain(kinds.error);
        return 1;
      }
      return flinkCommand(command, {
        say,
        complain,
        problemLine: (problem) => problemLine(command.job, problem),
      });
    }
  }
}
