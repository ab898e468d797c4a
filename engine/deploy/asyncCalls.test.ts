// A call that waits on the world (a timer here) suspends its subtask only: the deterministic
// executor runs the other subtasks meanwhile, and the slow one goes on when its mail comes.
// Debug runs still wait in place, and a call that only awaits the job's own work is waited for
// in place too, so such runs stay reproducible (the determinism test in jobRun.test.ts).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeJob, sink, generator as source } from '../../test/jobBuilders.js';
import { defineKind } from '../graph/kinds/kindDescriptor.js';
import { registerKindModule } from '../operators/kindFactories.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic } from '../runtime/operatorLogic.js';
import { JobRun } from './jobRun.js';

const WAIT_MS = 1000;

/** A transform whose every call awaits a timer, as an async function calling a service would. */
const slowKind = {
  descriptor: defineKind({
    kind: 'test.slowEcho',
    role: 'transform',
    params: z.strictObject({}),
    ports: { inputs: true, outputs: ['out'] },
    keyedInput: 'never',
    available: true,
    designer: {
      label: 'Slow echo',
      group: 'transform',
      description: 'Waits, then passes the record on.',
      idBase: 'slow',
      defaultParams: {},
      icon: '',
    },
  }),
  factory: {
    role: 'transform' as const,
    createLogic: () => (env: ConstructorParameters<typeof BaseLogic>[0]) =>
      new (class extends BaseLogic {
        override async process(envelope: Envelope): Promise<void> {
          await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
          this.env.emitter.emit(envelope.value);
        }
      })(env),
  },
};

let dir: string;
let unregister: () => void;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pw-async-'));
  unregister = registerKindModule(slowKind);
});
afterAll(async () => {
  unregister();
  await rm(dir, { recursive: true, force: true });
});

/** Two independent pipelines: three records through the slow operator, 3,000 through a fast one. */
const twoPipelines = () =>
  makeJob(
    'two-pipelines',
    [
      // The fast pipeline first: the executor runs the most downstream subtasks first, so the
      // slow one is in the way of the fast one.
      source('many', 'function generate(i) { return { i }; }', 3000),
      { id: 'fast', kind: 'map', params: { code: 'function map(r) { return { j: r.i * 2 }; }' } },
      sink('fastOut', 'fast.jsonl'),
      source('few', 'function generate(i) { return { i }; }', 3),
      { id: 'slow', kind: 'test.slowEcho', params: {} },
      sink('slowOut', 'slow.jsonl'),
    ],
    [
      { id: 'few-slow', from: 'few', to: 'slow', partition: 'forward' },
      { id: 'slow-out', from: 'slow', to: 'slowOut', partition: 'forward' },
      { id: 'many-fast', from: 'many', to: 'fast', partition: 'forward' },
      { id: 'fast-out', from: 'fast', to: 'fastOut', partition: 'forward' },
    ],
    { checkpointIntervalMs: 0 },
  );

describe('a call that waits on a timer', () => {
  it('does not hold the other subtasks: the fast pipeline is through before the slow one has its first record out', async () => {
    const arrivals: string[] = [];
    const run = await JobRun.open(twoPipelines(), {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      observer: (subtask) => {
        if (subtask.operator.id === 'slowOut' || subtask.operator.id === 'fastOut') {
          arrivals.push(subtask.operator.id);
        }
      },
    });
    await run.run();
    const slowOut = (await readFile(join(dir, 'slow.jsonl'), 'utf8')).trim().split('\n');
    const fastOut = (await readFile(join(dir, 'fast.jsonl'), 'utf8')).trim().split('\n');
    expect(slowOut.map((l) => JSON.parse(l))).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(fastOut).toHaveLength(3000);
    // Waiting in place, the fast pipeline got a slice between two waits: 3,000 records took
    // several waits. Suspended, it finished during the first.
    expect(arrivals.lastIndexOf('fastOut')).toBeLessThan(arrivals.indexOf('slowOut'));
  });
});
