// source.waiting, the Node side: each subtask polls for releaseFile every RETRY_MS, telling the
// run's status "waiting for ... : retry N in 100 ms" as a connector's ServerRetry does, and once
// the file is there says it waits no more and emits its share of 0 .. count - 1.
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { KindFactory } from '../../../engine/operators/kindFactory.js';
import type { SubtaskEnvironment } from '../../../engine/runtime/operatorLogic.js';
import type { Source, SourceReader } from '../../../engine/runtime/source.js';
import { type WaitingParams, waitingParams } from './descriptor.js';

const RETRY_MS = 100;

interface Range {
  readonly from: number;
  readonly to: number;
}

function asRange(payload: unknown): Range {
  const { from, to } = (payload ?? {}) as { from?: unknown; to?: unknown };
  if (!Number.isInteger(from) || !Number.isInteger(to))
    throw new Error('a source.waiting split is {from, to}');
  return { from: from as number, to: to as number };
}

export const sourceWaitingFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned, jobDir }) => {
    const params = waitingParams.parse(planned.operator.params);
    const source: Source<Range> = {
      waitsOnWorld: true,
      splitKind: 'source.waiting',
      serializer: { toPayload: (r) => ({ from: r.from, to: r.to }), fromPayload: asRange },
      enumerator: {
        assign: (parallelism, restored) =>
          restored === undefined
            ? Array.from({ length: parallelism }, (_, s) => [
                {
                  from: Math.floor((params.count * s) / parallelism),
                  to: Math.floor((params.count * (s + 1)) / parallelism),
                },
              ])
            : Array.from({ length: parallelism }, (_, s) =>
                restored.filter((_r, i) => i % parallelism === s),
              ),
      },
      createReader: (env) => new WaitingReader(env, params, resolve(jobDir, params.releaseFile)),
    };
    return source as Source<unknown>;
  },
};

class WaitingReader implements SourceReader<Range> {
  private ranges: { from: number; to: number }[] = [];
  private attempt = 0;
  private released = false;
  /** Kept as a connector keeps it (in its ServerRetry), before the subtask runs. */
  private readonly reportWait: SubtaskEnvironment['reportWait'];

  constructor(
    private readonly env: SubtaskEnvironment,
    private readonly params: WaitingParams,
    private readonly releaseFile: string,
  ) {
    this.reportWait = env.reportWait;
  }

  async open(splits: readonly Range[]): Promise<void> {
    this.ranges = splits.filter((s) => s.from < s.to).map((s) => ({ ...s }));
    if (this.params.waitIn === 'open') while (!(await this.tryRelease()));
  }

  /** Whether the file is there; if not, says so and waits RETRY_MS first. */
  private async tryRelease(): Promise<boolean> {
    try {
      await access(this.releaseFile);
      this.released = true;
      this.reportWait?.(undefined);
      return true;
    } catch {
      this.attempt++;
      this.reportWait?.(
        `waiting for ${this.releaseFile} (not there yet): retry ${this.attempt} in ${RETRY_MS} ms`,
      );
      await new Promise((r) => setTimeout(r, RETRY_MS));
      return false;
    }
  }

  async poll(limit: number): Promise<number> {
    if (!this.released && !(await this.tryRelease())) return 0;
    if (this.ranges.length === 0) return -1;
    const connection = this.params.connection;
    let emitted = 0;
    while (emitted < limit && this.ranges.length > 0) {
      const range = this.ranges[0]!;
      const n = range.from++;
      if (range.from >= range.to) this.ranges.shift();
      this.env.emitter.emit({
        n,
        ...(connection === undefined ? {} : { connectionResolved: !connection.includes('${env:') }),
      });
      emitted++;
      if (this.env.emitter.blocked) break;
    }
    return emitted;
  }

  snapshotSplits(): readonly Range[] {
    return this.ranges.map((r) => ({ ...r }));
  }

  async close(): Promise<void> {}
}
