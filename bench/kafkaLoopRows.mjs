// The loops suite's other rows: the owner-has-items job with its loop through a Kafka topic
// instead of a feedback edge, the alternative issue 29 names to the runner's head and tail. The
// `transfer` port goes to a `sink.kafka` (exactly once: a transaction per checkpoint) writing a
// topic, and a `source.kafka` reading that topic (read_committed) feeds `owners` again; the graph
// has no cycle, so any engine runs it. A record goes round once its checkpoint has committed, so
// each round trip takes a checkpoint interval or so.
//
// Such a job never ends by itself (its Kafka source waits for more). A row's time is from the
// start of the process to the moment every `owned` and `released` line the events decide is in
// the output, counted as the sink commits it (the engine appends its file at each checkpoint; on
// Flink, FileSink's committed part files, which do not start with a dot); then Ctrl-C stops the
// job at a checkpoint (the runner: with a savepoint) and its output is checked against the digest.
// Each run has a topic of its own, made before and removed after it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { clean, REPO_DIR, writeJob } from './engineRun.mjs';
import { createTopic, deleteTopics, kafkaProblem } from './kafkaTopics.mjs';
import { ownershipCanon } from './ownerData.mjs';

const BROKERS = process.env.PIPEWRIGHT_KAFKA_BROKERS ?? process.env.KAFKA_BROKERS ?? 'localhost:9092';
/** As many partitions as `owners` has subtasks. */
const PARTITIONS = 4;
/** How often the output is counted while the job runs. */
const COUNT_EVERY_MS = 200;
/** How long a stop (Ctrl-C: a final checkpoint, or a savepoint) may take before the run is killed. */
const STOP_WAIT_MS = 120_000;

/** The example's job with its feedback edge replaced by `loop-out` -> topic -> `loop-in`. */
export function kafkaLoopJob(job, topic) {
  const feedback = job.edges.find((e) => e.feedback === true);
  const head = feedback.to;
  return {
    ...job,
    operators: [
      ...job.operators,
      {
        id: 'loop-in',
        kind: 'source.kafka',
        parallelism: 1,
        params: { bootstrapServers: BROKERS, topic, startingOffsets: 'earliest' },
      },
      {
        id: 'loop-out',
        kind: 'sink.kafka',
        parallelism: 1,
        params: { bootstrapServers: BROKERS, topic, keyField: feedback.key, transactionalIdPrefix: topic },
      },
    ],
    edges: [
      ...job.edges.filter((e) => e !== feedback),
      {
        id: 'loop-back',
        from: feedback.from,
        fromPort: feedback.fromPort,
        to: 'loop-out',
        partition: 'rebalance',
      },
      { id: 'loop-in', from: 'loop-in', to: head, partition: 'hash', key: feedback.key },
    ],
  };
}

/** Why the Kafka rows cannot run here, or undefined. */
export const kafkaLoopProblem = () => kafkaProblem(BROKERS);

/**
 * A row: `command` (['run', '--threads', '2'] or ['flink']) of the Kafka-loop job made from
 * `job` by `makeJob`, timed until `expected` decided lines are out, then stopped.
 */
export function kafkaLoopConfig({
  id,
  label,
  name,
  command,
  records,
  expected,
  digest,
  ctx,
  makeJob,
  runner,
}) {
  const out = join(ctx.outDir, `${name}.jsonl`);
  const parts = join(ctx.outDir, `.${name}.jsonl.flink`);
  const jobPath = join(ctx.jobsDir, `${name}.job.json`);
  const stateDir = join(ctx.stateDir, name);
  return {
    id,
    label,
    records,
    kind: runner ? 'runner' : 'engine',
    kafkaLoop: true,
    cpuProfile: false,
    prepare: () => {
      clean(out, parts, stateDir, join(ctx.jobsDir, '.pipewright', name));
      counted.clear();
    },
    run: async () => {
      const topic = `pipewright-bench-loop-${name}-${process.pid}-${Date.now()}`;
      await createTopic(BROKERS, topic, PARTITIONS);
      writeJob(jobPath, kafkaLoopJob(makeJob(name), topic));
      try {
        const args = [ctx.engineEntry, command[0], jobPath, '--quiet', '--trust', ...command.slice(1)];
        if (!runner) args.push('--state-dir', stateDir);
        return await runUntilOutput(args, () => decidedLines(out, parts), expected);
      } finally {
        await deleteTopics(BROKERS, [topic]);
      }
    },
    verify: () => ctx.verifyOutput(out, ownershipCanon, digest),
  };
}

/**
 * Starts the CLI, counts what it has committed every COUNT_EVERY_MS, and once `expected` lines
 * are out takes the time and stops it with SIGINT. { code, ms, stdout, stderr, peakRssKb: 0 }.
 */
function runUntilOutput(args, count, expected) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout = (stdout + c).slice(-65536);
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr = (stderr + c).slice(-65536);
    });
    let ms;
    let killer;
    const poll = setInterval(() => {
      if (ms !== undefined || count() < expected) return;
      ms = performance.now() - t0;
      child.kill('SIGINT');
      killer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
    }, COUNT_EVERY_MS);
    child.on('error', (e) => {
      clearInterval(poll);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearInterval(poll);
      clearTimeout(killer);
      // Ended before its output was complete: a failure, whatever its exit code says.
      if (ms === undefined) {
        resolve({
          code: code === 0 ? 1 : code,
          signal,
          ms: 0,
          peakRssKb: 0,
          stdout,
          stderr: stderr || 'ended early',
        });
        return;
      }
      resolve({ code, signal, ms, peakRssKb: 0, stdout, stderr });
    });
  });
}

/** Lines counted so far, per file: files only grow (the engine's) or never change once committed (Flink's parts). */
const counted = new Map();

/** The `owned` and `released` lines committed so far: in the sink's file, and in its committed parts on Flink. */
function decidedLines(out, parts) {
  const files = [out];
  if (existsSync(parts)) {
    for (const f of readdirSync(parts, { recursive: true })) {
      const path = join(parts, String(f));
      if (
        !String(f)
          .split('/')
          .some((s) => s.startsWith('.')) &&
        statSync(path).isFile()
      )
        files.push(path);
    }
  }
  let n = 0;
  for (const file of files) n += countNew(file);
  return n;
}

function countNew(file) {
  if (!existsSync(file)) return 0;
  const seen = counted.get(file) ?? { offset: 0, lines: 0, rest: '' };
  counted.set(file, seen);
  const size = statSync(file).size;
  if (size < seen.offset) Object.assign(seen, { offset: 0, lines: 0, rest: '' });
  if (size === seen.offset) return seen.lines;
  const buffer = Buffer.alloc(size - seen.offset);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, seen.offset);
  } finally {
    closeSync(fd);
  }
  seen.offset = size;
  const text = seen.rest + buffer.toString('utf8');
  const lines = text.split('\n');
  seen.rest = lines.pop();
  for (const line of lines) if (line !== '' && !line.includes('"event":"waiting"')) seen.lines++;
  return seen.lines;
}
