// A source whose reader is, for a while, somewhere no split can describe (source.postgres reading
// its snapshot in one transaction) says so with readyForSnapshot() false: a checkpoint due then
// waits while the source goes on producing, and is taken, then completed, once the reader says
// true. A fake source kind (registered in this process) is not ready for its first READY_AT
// records; every snapshot it is asked for must come after them, and checkpoints must complete
// (its input ends once it is told of one, or after many idle polls).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineKind } from '../../engine/graph/kinds/kindDescriptor.js';
import { validateJob } from '../../engine/graph/validation/validateJob.js';
import { registerKindModule } from '../../engine/operators/kindFactories.js';
import type { KindModule } from '../../engine/operators/kindFactory.js';
import type { SubtaskEnvironment } from '../../engine/runtime/operatorLogic.js';
import type { Source, SourceReader } from '../../engine/runtime/source.js';
import { runJob } from '../executors.js';

const COUNT = 600;
const READY_AT = 300;
const PER_POLL = 10;
/**
 * Polls after the last record before the input ends without having been told of a completed
 * checkpoint (each waits on a 2 ms timer): ample for one to complete, and bounded by work.
 */
const IDLE_POLLS_AT_END = 5000;

/** What the readers saw: the position at each snapshot, and the checkpoints completed. */
const seen = { snapshotsAt: [] as number[], completed: [] as number[] };

class LateReadyReader implements SourceReader<{ next: number }> {
  private next = 0;
  private idlePolls = 0;
  constructor(private readonly env: SubtaskEnvironment) {}
  async open(splits: readonly { next: number }[]): Promise<void> {
    this.next = splits[0]?.next ?? COUNT;
  }
  poll(limit: number): number | Promise<number> {
    // Its input ends once it has been told of a completed checkpoint: a run that ended first
    // would not tell it (on a loaded machine the first one can complete after the last record).
    if (this.next >= COUNT && (seen.completed.length > 0 || ++this.idlePolls > IDLE_POLLS_AT_END)) return -1;
    // A real timer, so that checkpoints fall due while the first READY_AT records go out.
    return new Promise<void>((resolve) => setTimeout(resolve, 2)).then(() => {
      let emitted = 0;
      while (emitted < Math.min(limit, PER_POLL) && this.next < COUNT) {
        this.env.emitter.emit({ n: this.next++ });
        emitted++;
      }
      return emitted;
    });
  }
  readyForSnapshot(): boolean {
    return this.next >= READY_AT;
  }
  snapshotSplits(): readonly { next: number }[] {
    seen.snapshotsAt.push(this.next);
    return [{ next: this.next }];
  }
  checkpointComplete(checkpointId: number): void {
    seen.completed.push(checkpointId);
  }
  async close(): Promise<void> {}
}

const lateReady: KindModule = {
  descriptor: defineKind({
    kind: 'source.lateReady',
    role: 'source',
    params: z.strictObject({}),
    ports: { inputs: false, outputs: ['out'] },
    keyedInput: 'never',
    available: true,
    designer: {
      label: 'Late ready',
      group: 'source',
      description: 'Not ready for a checkpoint during its first records.',
      idBase: 'late',
      defaultParams: {},
      icon: 'M2 4h12',
    },
  }),
  factory: {
    role: 'source',
    createSource: () => {
      const source: Source<{ next: number }> = {
        waitsOnWorld: true,
        splitKind: 'source.lateReady',
        serializer: { toPayload: (s) => ({ next: s.next }), fromPayload: (p) => p as { next: number } },
        enumerator: {
          assign: (parallelism, restored) => [restored ?? [{ next: 0 }], ...Array(parallelism - 1).fill([])],
        },
        createReader: (env) => new LateReadyReader(env),
      };
      return source as Source<unknown>;
    },
  },
};

let unregister: () => void;
let dir: string;
beforeAll(async () => {
  unregister = registerKindModule(lateReady);
  dir = await mkdtemp(join(tmpdir(), 'pipewright-lateready-'));
});
afterAll(async () => {
  unregister();
  await rm(dir, { recursive: true, force: true });
});

describe('a source not ready for a snapshot', () => {
  it('makes a due checkpoint wait while it produces, then the checkpoint is taken and completes', async () => {
    const { job, problems } = validateJob({
      format: 'pipewright.job/1',
      name: 'late-ready',
      settings: { checkpointIntervalMs: 10 },
      operators: [
        { id: 'src', kind: 'source.lateReady', parallelism: 1, params: {} },
        { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
      ],
      edges: [{ id: 'e', from: 'src', to: 'out', partition: 'forward' }],
    });
    expect(problems).toEqual([]);
    const summary = await runJob('deterministic', job!, {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir: join(dir, 'checkpoints'),
    });
    const context = `snapshots at ${seen.snapshotsAt.join(', ')}; completed ${seen.completed.join(', ')}`;
    expect(seen.snapshotsAt.length, context).toBeGreaterThan(0);
    expect(Math.min(...seen.snapshotsAt), context).toBeGreaterThanOrEqual(READY_AT);
    // The first checkpoint waited and was then taken during the run, before the input ended.
    expect(seen.snapshotsAt[0], context).toBeLessThan(COUNT);
    expect(seen.completed.length, context).toBeGreaterThan(0);
    expect(summary.checkpoints.length, context).toBeGreaterThan(0);
    const lines = (await readFile(join(dir, 'out.jsonl'), 'utf8')).split('\n').filter((l) => l !== '');
    expect(lines).toEqual(Array.from({ length: COUNT }, (_, n) => JSON.stringify({ n })));
  });
});
