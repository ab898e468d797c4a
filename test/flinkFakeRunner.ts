// A stand-in for the Java runner's side of the worker pipe (flink/PROTOCOL.md), for tests that
// drive the real worker (dist/flink/flinkWorker.mjs) as Flink would: it frames messages, keeps
// each key's state as JSON text the way the runner's ValueState/MapState/ListState do, answers
// the worker's `read`s from it as it stood when the batch began, sends the value states it knows
// the code reads in `s`, and applies a batch's writes only once `done` comes.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './cliHarness.js';

export const workerPath = path.join(repoRoot, 'dist', 'flink', 'flinkWorker.mjs');

export type Frame = Record<string, unknown> & { t: string };

interface KeyState {
  readonly v: Map<string, string>;
  readonly m: Map<string, Map<string, string>>;
  readonly l: Map<string, string[]>;
}

export interface BatchAnswer {
  /** `done` or `error`. */
  readonly answer: Frame;
  /** The worker's read requests on the way. */
  readonly reads: Frame[];
}

/** An item of a batch: a record (`k` undefined for an unkeyed operator) or a timer that fired. */
export type BatchItem =
  | { e: string; k?: unknown; r: unknown; ts?: number }
  | { timer: 'e' | 'p'; ts: number; k: unknown }
  | { wm: number; k?: undefined };

export class FakeRunner {
  readonly child: ChildProcessWithoutNullStreams;
  private pending = Buffer.alloc(0);
  private frames: Frame[] = [];
  private waiting: ((frame: Frame | undefined) => void) | undefined;
  private ended = false;
  stderr = '';
  /** Registered timers, as `DOMAIN:KEY:TIME` (e or p, the key as JSON). */
  readonly timers = new Set<string>();
  readonly exited: Promise<number | null>;
  /** State per key (its JSON text). */
  readonly state = new Map<string, KeyState>();
  /** Value state names the code was seen to read: sent in `s` with every record. */
  readonly sentNames = new Set<string>();

  constructor(cwd = repoRoot) {
    this.child = spawn(process.execPath, [workerPath], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.take(chunk));
    this.child.stdout.on('end', () => {
      this.ended = true;
      this.waiting?.(undefined);
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length);
    this.child.stdin.write(Buffer.concat([header, body]));
  }

  /** The worker's next frame; undefined once its stdout ended. */
  next(): Promise<Frame | undefined> {
    const frame = this.frames.shift();
    if (frame !== undefined) return Promise.resolve(frame);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting = (f) => {
        this.waiting = undefined;
        resolve(f);
      };
    });
  }

  async open(open: Record<string, unknown>): Promise<Frame | undefined> {
    this.send({ t: 'open', subtask: 0, parallelism: 1, maxParallelism: 128, jobName: 'test', ...open });
    return this.next();
  }

  /**
   * Sends a batch (`k` undefined for an unkeyed operator), answering reads from the state as it
   * was when the batch began; on `done` applies its writes in order.
   */
  async batch(records: readonly BatchItem[], watermark?: number): Promise<BatchAnswer> {
    this.send(this.framed(records, watermark));
    return this.answered(records);
  }

  /**
   * Sends the batches at once, as the runner does with two in flight: each one's `s` is the
   * state before the first; then answers them in order, applying each one's writes at its `done`.
   */
  async batchesInFlight(batches: readonly (readonly BatchItem[])[]): Promise<BatchAnswer[]> {
    for (const records of batches) this.send(this.framed(records));
    const answers: BatchAnswer[] = [];
    for (const records of batches) answers.push(await this.answered(records));
    return answers;
  }

  private framed(records: readonly BatchItem[], watermark?: number): unknown {
    const framed = records.map((record) => {
      if (record.k === undefined) return record;
      const s: Record<string, string | null> = {};
      for (const name of this.sentNames) s[name] = this.keyState(record.k).v.get(name) ?? null;
      return { ...record, s };
    });
    return { t: 'batch', records: framed, ...(watermark === undefined ? {} : { w: watermark }) };
  }

  private async answered(records: readonly BatchItem[]): Promise<BatchAnswer> {
    const reads: Frame[] = [];
    for (;;) {
      const frame = await this.next();
      if (frame === undefined) throw new Error(`the worker ended mid-batch: ${this.stderr}`);
      if (frame.t !== 'read') {
        if (frame.t === 'done') this.apply(records, frame.writes as unknown[][]);
        return { answer: frame, reads };
      }
      reads.push(frame);
      this.send(this.answerRead(records, frame));
    }
  }

  async close(): Promise<number | null> {
    this.send({ t: 'close' });
    this.child.stdin.end();
    return this.exited;
  }

  keyState(key: unknown): KeyState {
    const text = JSON.stringify(key);
    let state = this.state.get(text);
    if (state === undefined) {
      state = { v: new Map(), m: new Map(), l: new Map() };
      this.state.set(text, state);
    }
    return state;
  }

  private answerRead(records: readonly { k?: unknown }[], read: Frame): unknown {
    const state = this.keyState(records[read.i as number]!.k);
    const name = read.name as string;
    switch (read.what) {
      case 'value':
        this.sentNames.add(name);
        return { t: 'value', v: state.v.get(name) ?? null };
      case 'map':
        return { t: 'value', v: state.m.get(name)?.get(read.mk as string) ?? null };
      case 'mapEntries':
        // In the order RocksDB might hold them, not the worker's: it orders them itself.
        return { t: 'entries', entries: [...(state.m.get(name) ?? new Map())].reverse() };
      case 'list':
        return { t: 'list', values: state.l.get(name) ?? [] };
      default:
        throw new Error(`unknown read ${JSON.stringify(read)}`);
    }
  }

  private apply(records: readonly { k?: unknown }[], writes: unknown[][]): void {
    for (const [i, op, name, a, b] of writes as [number, string, string, unknown, unknown][]) {
      const state = this.keyState(records[i]!.k);
      if (op === 'v') {
        if (a === null) state.v.delete(name);
        else state.v.set(name, a as string);
      } else if (op === 'm') {
        const map = state.m.get(name) ?? new Map<string, string>();
        if (b === null) map.delete(a as string);
        else map.set(a as string, b as string);
        state.m.set(name, map);
      } else if (op === 'mc') state.m.delete(name);
      else if (op === 'l') state.l.set(name, [...(state.l.get(name) ?? []), a as string]);
      else if (op === 'lc') state.l.delete(name);
      else if (op === 'te' || op === 'tp' || op === 'xe' || op === 'xp') {
        // Flink's timer service: one timer per key, time and domain.
        const timer = `${op[1]}:${JSON.stringify(records[i]!.k)}:${name}`;
        if (op[0] === 't') this.timers.add(timer);
        else this.timers.delete(timer);
      } else throw new Error(`unknown write ${op}`);
    }
  }

  private take(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0);
      if (this.pending.length < 4 + length) break;
      const frame = JSON.parse(this.pending.toString('utf8', 4, 4 + length)) as Frame;
      this.pending = this.pending.subarray(4 + length);
      if (this.waiting !== undefined) this.waiting(frame);
      else this.frames.push(frame);
    }
  }
}
