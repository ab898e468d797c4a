// One run of the Java runner (flink/, dev.pipewright.flink.Runner) on an embedded MiniCluster:
// a JVM started with the plan, Flink's logs into a file, its events (flink/PROTOCOL.md, "The
// runner's output") read from its stdout. Stopping kills the JVM; its workers end with their
// stdin. What the run leaves behind is the sinks' committed parts, joined by the caller.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { type FlinkRunnerFiles, flinkJvmOptions } from './flinkBuild.js';

/** A line the runner prints on its stdout. */
type FlinkEvent =
  | { readonly event: 'submitted'; readonly jobId: string }
  | { readonly event: 'finished'; readonly jobId?: string; readonly ms?: number }
  | { readonly event: 'failed'; readonly message: string }
  | { readonly event: string; readonly [field: string]: unknown };

export interface FlinkJobOutcome {
  /** The JVM's exit status (null when a signal ended it). */
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The runner's `failed` message, if it said one. */
  readonly failure?: string;
  readonly finished: boolean;
}

export interface FlinkJobRun {
  readonly done: Promise<FlinkJobOutcome>;
  /** Ends the run at once (the JVM and, through their stdin, its workers). */
  kill(): void;
}

export function startFlinkJob(files: FlinkRunnerFiles, planFile: string, logFile: string): FlinkJobRun {
  const log = createWriteStream(logFile);
  let child: ChildProcess;
  const done = (async (): Promise<FlinkJobOutcome> => {
    const classpath = (await readFile(files.classpathFile, 'utf8')).trim();
    child = spawn(
      'java',
      [
        ...flinkJvmOptions(files.root),
        // Flink logs at info by default: hundreds of lines a run, kept in the log file anyway.
        '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
        '-cp',
        `${files.jar}:${classpath}`,
        'dev.pipewright.flink.Runner',
        '--plan',
        planFile,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stderr!.pipe(log);
    let failure: string | undefined;
    let finished = false;
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let event: FlinkEvent;
      try {
        event = JSON.parse(line) as FlinkEvent;
      } catch {
        log.write(`${line}\n`);
        return;
      }
      if (event.event === 'failed') failure = String(event.message);
      if (event.event === 'finished') finished = true;
    });
    const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      child.on('error', (error) => {
        failure = `cannot start java: ${error.message}`;
        resolve([null, null]);
      });
      child.on('close', (code, sig) => resolve([code, sig]));
    });
    await new Promise<void>((resolve) => log.end(resolve));
    return { status, signal, finished, ...(failure === undefined ? {} : { failure }) };
  })();
  return {
    done,
    kill: () => {
      child?.kill('SIGKILL');
    },
  };
}
