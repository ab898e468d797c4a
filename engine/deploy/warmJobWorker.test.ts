// The CLI's run thread started before its job is known (warmJobWorker.ts): a run takes it and
// runs as on a thread started for it, failures included; a command that does not use it ends it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generator, makeJob, sink } from '../../test/jobBuilders.js';
import { createMarkerBuffer } from '../runtime/callMarker.js';
import { ThreadedJobRun } from './threadedJobRun.js';
import { dropWarmJobWorker, startWarmJobWorker, takeWarmJobWorker } from './warmJobWorker.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pw-warm-'));
});
afterEach(async () => {
  await dropWarmJobWorker();
  await rm(dir, { recursive: true, force: true });
});

const job = () =>
  makeJob(
    'warm',
    [generator('gen', 'function generate(i) { return { i }; }', 500), sink('out', 'out.jsonl')],
    [{ id: 'e', from: 'gen', to: 'out', partition: 'forward' }],
  );
const options = () => ({
  job: job(),
  jobDir: dir,
  stateDir: join(dir, 'state'),
  checkpointDir: join(dir, 'checkpoints'),
});

describe('a run thread started before its job is known', () => {
  it('is the one a threaded run takes, and runs the job given to it', async () => {
    startWarmJobWorker();
    const summary = await ThreadedJobRun.start(options()).run();
    expect(summary.stopped).toBe(false);
    const lines = (await readFile(join(dir, 'out.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).i)).toEqual([...Array(500).keys()]);
    // Taken: nothing is left to take, nor to end.
    expect(takeWarmJobWorker({ ...options(), marker: createMarkerBuffer() })).toBeUndefined();
    expect(await dropWarmJobWorker()).toBeUndefined();
  });

  it("fails as a fresh thread does, with the engine's one line", async () => {
    startWarmJobWorker();
    const missing = join(dir, 'nowhere', 'kind.js');
    await expect(ThreadedJobRun.start({ ...options(), kindModules: [missing] }).run()).rejects.toThrow(
      `cannot load the kind module ${missing}: `,
    );
    expect(await dropWarmJobWorker()).toBeUndefined();
  });

  it('ends when dropped, and a run after that starts a thread of its own', async () => {
    startWarmJobWorker();
    expect(await dropWarmJobWorker()).toBeTypeOf('number');
    expect(await dropWarmJobWorker()).toBeUndefined();
    const summary = await ThreadedJobRun.start(options()).run();
    expect(summary.metrics.operators.find((o) => o.id === 'out')?.recordsIn).toBe(500);
  });
});
