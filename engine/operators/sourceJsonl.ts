// source.jsonl: one JSON record a line. Subtask s of p reads the lines that start in the s-th
// p-th of the file's bytes, so parallel readers split a file without reading it twice; every
// record carries its byte offset, from which a restore can resume and an error names its line.
// The input must be UTF-8: a byte order mark at the start of the file is skipped (as in a job
// file), and bytes that are not UTF-8 stop the job naming their line, rather than turning into
// U+FFFD unseen, as Flink's JSON format fails on input it cannot read.
// Its splits are byte ranges, each starting at a line; a fresh run's are shares of the file
// ("the s-th p-th"), made byte ranges once the reader knows the file's size.
import { isAscii, isUtf8 } from 'node:buffer';
import { type FileHandle, open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { JobError } from '../graph/jobError.js';
import type { ParamsOf } from '../graph/schema.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { describeRecordSource, type RecordSource } from '../runtime/recordSource.js';
import type { Source, SourceReader, SplitEnumerator, SplitSerializer } from '../runtime/source.js';
import type { KindFactory } from './kindFactory.js';
import { readTimestamp, timestampWanted } from './recordTimestamp.js';

const CHUNK = 1 << 20;
const NEWLINE = 10;
const REPLACEMENT = '\uFFFD';

/** True when the bytes from `start` are a UTF-8 byte order mark. */
function bomAt(buffer: Buffer, start: number, end: number): boolean {
  return (
    end - start >= 3 && buffer[start] === 0xef && buffer[start + 1] === 0xbb && buffer[start + 2] === 0xbf
  );
}

/** A byte range whose line starts are to be read (it starts at a line), or a share of the file. */
export type JsonlSplit =
  | { readonly start: number; readonly end: number }
  | { readonly part: number; readonly of: number };

const serializer = (file: string): SplitSerializer<JsonlSplit> => ({
  toPayload: (split) => ('part' in split ? { ...split } : { file, start: split.start, end: split.end }),
  fromPayload: (payload) => {
    const p = payload as { part?: number; of?: number; start?: number; end?: number };
    return p.part !== undefined ? { part: p.part, of: p.of! } : { start: p.start!, end: p.end! };
  },
});

/** Subtask s of p reads the s-th p-th of the file; a restore deals what was left round-robin. */
export const jsonlEnumerator: SplitEnumerator<JsonlSplit> = {
  assign(parallelism, restored) {
    const dealt: JsonlSplit[][] = Array.from({ length: parallelism }, () => []);
    if (restored === undefined) {
      dealt.forEach((splits, part) => {
        splits.push({ part, of: parallelism });
      });
    } else {
      restored.forEach((split, i) => {
        dealt[i % parallelism]!.push(split);
      });
    }
    return dealt;
  },
};

export function jsonlSource(jobDir: string, params: ParamsOf<'source.jsonl'>): Source<JsonlSplit> {
  const file = resolve(jobDir, params.path);
  return {
    eventTime:
      params.timestampField === undefined
        ? undefined
        : { maxOutOfOrdernessMs: params.maxOutOfOrdernessMs ?? 0, idleTimeoutMs: params.idleTimeoutMs },
    splitKind: 'source.jsonl',
    serializer: serializer(file),
    enumerator: jsonlEnumerator,
    createReader: (subtask) => new JsonlReader(subtask, params),
  };
}

export const sourceJsonlFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned, jobDir }) =>
    jsonlSource(jobDir, planned.operator.params as ParamsOf<'source.jsonl'>) as Source<unknown>,
};

interface Range {
  start: number;
  end: number;
  /** Whether `start` is known to be a line's first byte. */
  aligned: boolean;
}

export class JsonlReader implements SourceReader<JsonlSplit> {
  private readonly file: string;
  private readonly source: RecordSource;
  private readonly timestampPath: readonly string[] | undefined;
  private readonly skipBadTimestamps: boolean;
  private handle: FileHandle | undefined;
  private buffer = Buffer.allocUnsafe(CHUNK);
  /** File offset of buffer[0]. */
  private bufferOffset = 0;
  private bufferLength = 0;
  /** Index in the buffer of the next line's first byte. */
  private position = 0;
  /** Byte range whose line starts belong to this subtask. */
  private start = 0;
  private end = 0;
  private fileSize = 0;
  private atEof = false;
  private done = false;
  /** Ranges still to read after the current one (a restore may give a subtask several). */
  private queue: Range[] = [];
  /**
   * The buffer's bytes from `textStart` to `textEnd` (whole lines, the last ending at its
   * newline), all ASCII, decoded as one string: a line is a slice of it, and a character's
   * index plus `textStart` is its byte's. Decoding each line alone cost a call into the
   * buffer's native code per line: reading and parsing 1M keyed lines took ~35% less this way.
   */
  private text = '';
  private textStart = 0;
  private textEnd = 0;
  /** Bytes before this index that are not all ASCII: read a line at a time, not decoded again. */
  private slowUntil = 0;

  constructor(
    private readonly env: SubtaskEnvironment,
    params: ParamsOf<'source.jsonl'>,
  ) {
    this.file = resolve(env.jobDir, params.path);
    this.source = { kind: 'file', operatorId: env.operator.id, file: this.file };
    this.timestampPath = params.timestampField?.split('.');
    this.skipBadTimestamps = params.onBadTimestamp === 'skip';
  }

  async open(splits: readonly JsonlSplit[]): Promise<void> {
    try {
      this.handle = await open(this.file, 'r');
      const stats = await this.handle.stat();
      // Opening a folder for reading succeeds on Linux; only the first read would fail.
      if (stats.isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
      this.fileSize = stats.size;
    } catch (error) {
      await this.handle?.close().catch(() => {});
      this.handle = undefined;
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder, not a file' : String(error);
      throw new JobError(
        `operator "${this.env.operator.id}" cannot read its input file ${this.file}: ${why}`,
        this.env.operator.id,
      );
    }
    // Restored ranges start exactly at a line: they were cut between two records.
    this.queue = splits.map((split) =>
      'part' in split
        ? {
            start: Math.floor((this.fileSize * split.part) / split.of),
            end: Math.floor((this.fileSize * (split.part + 1)) / split.of),
            aligned: false,
          }
        : { start: split.start, end: split.end, aligned: true },
    );
    await this.nextRange();
  }

  /** Moves to the next range; false when none is left. */
  private async nextRange(): Promise<boolean> {
    const range = this.queue.shift();
    if (range === undefined) {
      this.done = true;
      return false;
    }
    this.start = range.start;
    this.end = range.end;
    this.done = false;
    this.atEof = false;
    this.bufferLength = 0;
    this.position = 0;
    this.forgetText();
    // A line belongs to the range that holds its first byte: start reading one byte early and
    // skip through the first newline (which may be that very byte).
    const skip = !range.aligned && this.start > 0;
    this.bufferOffset = skip ? this.start - 1 : this.start;
    await this.fill();
    if (skip && !(await this.skipPastNewline())) return this.nextRange();
    return true;
  }

  snapshotSplits(): JsonlSplit[] {
    const splits: JsonlSplit[] = [];
    if (!this.done) splits.push({ start: this.bufferOffset + this.position, end: this.end });
    for (const range of this.queue) splits.push({ start: range.start, end: range.end });
    return splits;
  }

  /** Where reading stands: the same ranges a checkpoint keeps, each starting at a line. */
  progress(): readonly JsonlSplit[] {
    return this.snapshotSplits();
  }

  /** Reads on from those ranges, as a restore does (the file is opened again if it was done). */
  async restoreProgress(progress: unknown): Promise<void> {
    const splits = progress as readonly { start: number; end: number }[];
    this.queue = splits.map((s) => ({ start: s.start, end: s.end, aligned: true }));
    if (this.queue.length > 0 && this.handle === undefined) this.handle = await open(this.file, 'r');
    await this.nextRange();
  }

  private async skipPastNewline(): Promise<boolean> {
    for (;;) {
      const newline = this.buffer.indexOf(NEWLINE, this.position);
      if (newline !== -1 && newline < this.bufferLength) {
        this.position = newline + 1;
        return true;
      }
      if (this.atEof) return false;
      this.position = this.bufferLength;
      await this.fill();
    }
  }

  private forgetText(): void {
    this.text = '';
    this.textStart = 0;
    this.textEnd = 0;
    this.slowUntil = 0;
  }

  /**
   * Decodes the whole lines from `position` on as one string, if they are all ASCII; false when
   * there is no whole line in the buffer or they are not (then lines are read one at a time up
   * to the last newline, and it is not tried again before).
   */
  private decodeLines(): boolean {
    if (this.position < this.slowUntil || this.bufferLength === 0) return false;
    const last = this.buffer.lastIndexOf(NEWLINE, this.bufferLength - 1);
    if (last < this.position) return false;
    if (!isAscii(this.buffer.subarray(this.position, last + 1))) {
      this.slowUntil = last + 1;
      return false;
    }
    this.text = this.buffer.toString('latin1', this.position, last + 1);
    this.textStart = this.position;
    this.textEnd = last + 1;
    return true;
  }

  /** Keeps the unread tail and reads the next chunk after it. */
  private async fill(): Promise<void> {
    this.forgetText();
    const tail = this.bufferLength - this.position;
    if (tail > 0 && this.position > 0) this.buffer.copy(this.buffer, 0, this.position, this.bufferLength);
    this.bufferOffset += this.position;
    this.position = 0;
    this.bufferLength = tail;
    if (this.buffer.length - tail < CHUNK / 2) {
      // A line longer than what is left: grow rather than cut it.
      const bigger = Buffer.allocUnsafe(this.buffer.length * 2);
      this.buffer.copy(bigger, 0, 0, tail);
      this.buffer = bigger;
    }
    const { bytesRead } = await this.handle!.read(
      this.buffer,
      tail,
      this.buffer.length - tail,
      this.bufferOffset + tail,
    );
    this.bufferLength = tail + bytesRead;
    if (bytesRead === 0) this.atEof = true;
  }

  poll(limit: number): number | Promise<number> {
    if (this.done) {
      if (this.queue.length === 0) return -1;
      return this.nextRange().then(() => this.poll(limit));
    }
    const emitter = this.env.emitter;
    const lineage = emitter.lineage;
    const buffer = this.buffer;
    let emitted = 0;
    while (emitted < limit) {
      const lineOffset = this.bufferOffset + this.position;
      if (lineOffset >= this.end) {
        this.done = true;
        break;
      }
      let text: string;
      if (this.position < this.textEnd || this.decodeLines()) {
        // Among the decoded lines, which end at a newline: there is one ahead.
        const from = this.position - this.textStart;
        const newline = this.text.indexOf('\n', from);
        const lineEnd = newline > from && this.text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        text = this.text.slice(from, lineEnd);
        this.position = this.textStart + newline + 1;
      } else {
        let newline = buffer.indexOf(NEWLINE, this.position);
        if (newline === -1 || newline >= this.bufferLength) {
          if (!this.atEof) {
            // Read on within this batch: batches must not end where the read buffer happens to,
            // or a restored run (whose buffer starts elsewhere) would interleave differently.
            const before = emitted;
            return this.fill().then(() => {
              const more = this.poll(limit - before);
              const total = (count: number) => (count < 0 ? (before > 0 ? before : -1) : before + count);
              return typeof more === 'number' ? total(more) : more.then(total);
            });
          }
          if (this.position >= this.bufferLength) {
            this.done = true;
            break;
          }
          newline = this.bufferLength;
        }
        let lineEnd = newline;
        if (lineEnd > this.position && buffer[lineEnd - 1] === 13) lineEnd--;
        // Only the file's first byte may start a mark to skip; its offsets stay the file's.
        const lineStart =
          lineOffset === 0 && bomAt(buffer, this.position, lineEnd) ? this.position + 3 : this.position;
        text = buffer.toString('utf8', lineStart, lineEnd);
        this.position = newline + 1;
        // Decoding turns bytes that are not UTF-8 into U+FFFD, so only a line that has one needs
        // its bytes checked (V8 answers at once for a line of one-byte characters). Reading 1M
        // lines of ~80 bytes cost the same CPU with this check as without, within the noise of
        // ±4% (~1.1 s all ASCII, ~1.2 s with é and an emoji on every line); isUtf8 on every
        // line's bytes instead cost ~22% more.
        if (text.includes(REPLACEMENT) && !isUtf8(buffer.subarray(lineStart, lineEnd))) {
          throw new JobError(
            `${describeRecordSource(this.source, lineOffset)} is not valid UTF-8 (save the file as UTF-8)`,
          );
        }
      }
      if (text.length === 0 || (text.charCodeAt(0) <= 32 && text.trim().length === 0)) continue;
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (error) {
        throw new JobError(
          `${describeRecordSource(this.source, lineOffset)} is not valid JSON (${(error as Error).message})`,
        );
      }
      lineage.source = this.source;
      lineage.position = lineOffset;
      if (this.timestampPath !== undefined) {
        const timestamp = readTimestamp(record, this.timestampPath);
        if (timestamp === undefined) {
          if (this.skipBadTimestamps) {
            emitter.recordsSkipped++;
            continue;
          }
          throw new JobError(
            `${describeRecordSource(this.source, lineOffset)} has ${timestampWanted(this.timestampPath)}`,
          );
        }
        lineage.timestamp = timestamp;
      }
      // On its way to another thread the line goes as it was read (see Envelope.text).
      emitter.emit(record, undefined, emitter.crossesThreads ? text : undefined);
      emitted++;
      if (emitter.blocked) break;
    }
    if (emitted === 0 && this.done) return this.queue.length === 0 ? -1 : this.poll(limit);
    return emitted;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}
