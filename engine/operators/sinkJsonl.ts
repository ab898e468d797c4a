// sink.jsonl: exactly-once output. Each subtask writes a hidden part file beside the target;
// only when the whole job has succeeded are the parts joined, in subtask order, and renamed
// onto the target in one step. A failed run leaves the target as it was.
import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ParamsOf } from '../graph/schema.js';
import type { Envelope } from '../runtime/envelope.js';
import { JobError } from '../runtime/jobError.js';
import { BaseLogic, type SubtaskEnvironment } from '../runtime/operatorLogic.js';

const WRITE_AT = 1 << 20;

/** What the subtasks of one sink operator share: where the parts go and when all are in. */
export class SinkTarget {
  readonly path: string;
  private committed = 0;

  constructor(
    jobDir: string,
    params: ParamsOf<'sink.jsonl'>,
    readonly parallelism: number,
  ) {
    this.path = resolve(jobDir, params.path);
  }

  partPath(subtask: number): string {
    return join(dirname(this.path), `.${basename(this.path)}.part-${subtask}.inprogress`);
  }

  /** Called once per subtask; the last one publishes the file. */
  async partCommitted(): Promise<void> {
    this.committed++;
    if (this.committed < this.parallelism) return;
    if (this.parallelism === 1) {
      await rename(this.partPath(0), this.path);
      return;
    }
    const joined = join(dirname(this.path), `.${basename(this.path)}.inprogress`);
    const out = createWriteStream(joined);
    for (let s = 0; s < this.parallelism; s++) {
      await pipeline(createReadStream(this.partPath(s)), out, { end: false });
    }
    await new Promise<void>((done, fail) =>
      out.end((error?: Error | null) => (error ? fail(error) : done())),
    );
    await rename(joined, this.path);
    for (let s = 0; s < this.parallelism; s++) await rm(this.partPath(s), { force: true });
  }
}

export class JsonlSinkLogic extends BaseLogic {
  private handle: FileHandle | undefined;
  private pending = '';
  private writing: Promise<void> | undefined;

  constructor(
    env: SubtaskEnvironment,
    private readonly target: SinkTarget,
  ) {
    super(env);
  }

  override async open(): Promise<void> {
    const part = this.target.partPath(this.env.subtask);
    try {
      await mkdir(dirname(part), { recursive: true });
      this.handle = await open(part, 'w');
    } catch (error) {
      throw new JobError(
        `operator "${this.env.operator.id}" cannot write its output ${this.target.path}: ${(error as Error).message}`,
        this.env.operator.id,
      );
    }
  }

  override process(envelope: Envelope): void | Promise<void> {
    const line = JSON.stringify(envelope.value);
    if (line === undefined) throw new TypeError(`the record is not a JSON value (${typeof envelope.value})`);
    this.pending += `${line}\n`;
    if (this.pending.length >= WRITE_AT) return this.write();
  }

  /** One write in flight; the next waits for it, which is the sink's backpressure. */
  private write(): Promise<void> | undefined {
    const previous = this.writing;
    const text = this.pending;
    this.pending = '';
    const handle = this.handle!;
    const next = (previous ?? Promise.resolve()).then(async () => {
      await handle.write(text);
    });
    this.writing = next;
    // The failure is reported where `writing` is awaited; this only marks it as handled.
    next.catch(() => {});
    return previous;
  }

  override async endInput(): Promise<void> {
    this.write();
    await this.writing;
    await this.handle!.sync();
    await this.handle!.close();
    this.handle = undefined;
  }

  override async commit(): Promise<void> {
    await this.target.partCommitted();
  }

  override async abort(): Promise<void> {
    await this.writing?.catch(() => {});
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    await rm(this.target.partPath(this.env.subtask), { force: true });
    await rm(join(dirname(this.target.path), `.${basename(this.target.path)}.inprogress`), { force: true });
  }
}
