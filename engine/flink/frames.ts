// The worker's end of the pipe to the Flink runner: frames of a 4-byte big-endian length and
// that many bytes of UTF-8 JSON, read from fd 0 and written to fd 1 (flink/PROTOCOL.md).
//
// Synchronous on purpose: user code reads state in the middle of a record (`count.get()`
// returns the value, not a promise), and a read the batch's cache cannot answer must wait for
// the runner's answer right there. fs.readSync blocks the thread, which has nothing else to do
// meanwhile. process.stdin and process.stdout are never touched: their streams would read ahead
// of us, or set the descriptors non-blocking.
import { readSync, writeSync } from 'node:fs';

const HEADER = 4;
/** A frame longer than this is a broken pipe, not a batch (the runner batches ~1,000 records). */
const MAX_FRAME = 1 << 30;

export class PipeError extends Error {
  override readonly name = 'PipeError';
}

export class FramePipe {
  /** Bytes read and not yet taken: one read may bring the end of one frame and the start of another. */
  private buffer = Buffer.alloc(64 * 1024);
  private start = 0;
  private end = 0;

  constructor(
    private readonly input = 0,
    private readonly output = 1,
  ) {}

  /** The next frame, parsed; undefined at the end of input between two frames. */
  read(): unknown {
    if (!this.fill(HEADER)) return undefined;
    const length = this.buffer.readUInt32BE(this.start);
    if (length > MAX_FRAME) throw new PipeError(`a frame of ${length} bytes is longer than ${MAX_FRAME}`);
    if (!this.fill(HEADER + length)) throw new PipeError('the input ended in the middle of a frame');
    const text = this.buffer.toString('utf8', this.start + HEADER, this.start + HEADER + length);
    this.start += HEADER + length;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new PipeError(`a frame is not JSON (${(error as Error).message})`);
    }
  }

  write(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const frame = Buffer.allocUnsafe(HEADER + body.length);
    frame.writeUInt32BE(body.length, 0);
    body.copy(frame, HEADER);
    let written = 0;
    while (written < frame.length) {
      written += retrying(() => writeSync(this.output, frame, written, frame.length - written));
    }
  }

  /**
   * Reads until `bytes` are buffered; false when the input ends first with none of them read
   * (a clean end), a PipeError when it ends part way.
   */
  private fill(bytes: number): boolean {
    while (this.end - this.start < bytes) {
      if (this.start > 0) {
        this.buffer.copy(this.buffer, 0, this.start, this.end);
        this.end -= this.start;
        this.start = 0;
      }
      if (this.buffer.length < bytes) {
        const grown = Buffer.alloc(Math.max(bytes, this.buffer.length * 2));
        this.buffer.copy(grown, 0, 0, this.end);
        this.buffer = grown;
      }
      const n = retrying(() =>
        readSync(this.input, this.buffer, this.end, this.buffer.length - this.end, null),
      );
      if (n === 0) {
        if (this.end === this.start) return false;
        throw new PipeError('the input ended in the middle of a frame');
      }
      this.end += n;
    }
    return true;
  }
}

/**
 * A descriptor someone else made non-blocking (a parent sharing it, a terminal) answers EAGAIN
 * instead of waiting: wait a moment and try again rather than fail the worker.
 */
function retrying(io: () => number): number {
  for (;;) {
    try {
      return io();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
