// The bench's CPU profile summary (bench/profileAreas.mjs): which area each sample's time goes to.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AREAS, areaOf, type CpuProfile, profileAreas, profileTable } from '../bench/profileAreas.mjs';

const ROOT = join(import.meta.dirname, '..');
const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
const dist = (path: string) => `file:///home/x/pipewright/dist/${path}`;

/** A profile of one thread: each stack (root first) sampled `count` times, 1 ms apart. */
function profileOf(stacks: readonly [readonly ReturnType<typeof frame>[], number][]): CpuProfile {
  const nodes: { id: number; callFrame: ReturnType<typeof frame>; children: number[] }[] = [
    { id: 1, callFrame: frame('(root)'), children: [] },
  ];
  const samples: number[] = [];
  for (const [stack, count] of stacks) {
    let parent = nodes[0]!;
    for (const f of stack) {
      let child = parent.children.map((id) => nodes[id - 1]!).find((n) => n.callFrame === f);
      if (child === undefined) {
        child = { id: nodes.length + 1, callFrame: f, children: [] };
        nodes.push(child);
        parent.children.push(child.id);
      }
      parent = child;
    }
    for (let i = 0; i < count; i++) samples.push(parent.id);
  }
  return {
    nodes,
    samples,
    timeDeltas: samples.map(() => 1000),
    startTime: 0,
    endTime: samples.length * 1000,
  };
}

describe('the bench CPU profile summary', () => {
  it('names the area of engine files, user code, scripts, GC and module loading', () => {
    expect(areaOf(frame('poll', dist('engine/operators/sourceJsonl.js')))).toBe('source');
    expect(areaOf(frame('write', dist('engine/operators/sinkJsonl.js')))).toBe('sink');
    expect(areaOf(frame('get', dist('engine/state/memoryKvStore.js')))).toBe('state');
    expect(areaOf(frame('record', dist('engine/runtime/batchCodec.js')))).toBe('thread transport');
    expect(areaOf(frame('copyObject', dist('engine/runtime/recordCopy.js')))).toBe('record copies');
    expect(areaOf(frame('admit', dist('engine/operators/transactionLogic.js')))).toBe('transactions');
    expect(areaOf(frame('txRows', dist('engine/operators/transaction/txRows.js')))).toBe('transactions');
    expect(areaOf(frame('fire', dist('engine/operators/window/windowFiring.js')))).toBe('windows');
    expect(areaOf(frame('toRow', dist('engine/operators/postgres/sink/pgRows.js')))).toBe('sink');
    expect(areaOf(frame('next', dist('engine/operators/kafka/source/kafkaSource.js')))).toBe('source');
    expect(areaOf(frame('deliver', dist('engine/runtime/inputProcessor.js')))).toBe('runtime');
    expect(areaOf(frame('process', 'pipewright://operator/acc'))).toBe('user code');
    expect(areaOf(frame('main', 'file:///w/pipewright/bench/baselines/keyed-map.mjs'))).toBe('script');
    expect(areaOf(frame('_getSync', 'file:///w/node_modules/classic-level/index.js'))).toBe('LevelDB');
    expect(areaOf(frame('query', 'file:///w/node_modules/pg/lib/client.js'))).toBe('connector clients');
    // A package's own dist/ is still the package's.
    const kafka = 'file:///w/node_modules/@platformatic/kafka/dist/clients/consumer/messages-stream.js';
    expect(areaOf(frame('pushRecords', kafka))).toBe('connector clients');
    expect(areaOf(frame('(garbage collector)'))).toBe('GC');
    expect(areaOf(frame('compile', 'node:internal/modules/esm/utils'))).toBe('module loading');
    // A builtin or a native binding, and Node's own library: their caller's.
    expect(areaOf(frame('parse'))).toBeUndefined();
    expect(areaOf(frame('postMessage'))).toBeUndefined();
    expect(areaOf(frame('write', 'node:buffer'))).toBeUndefined();
  });

  it('names files that exist: a rename would move their time into "runtime" unseen', () => {
    for (const file of [
      'engine/operators/sourceJsonl.ts',
      'engine/operators/sinkJsonl.ts',
      'engine/operators/transactionLogic.ts',
      'engine/operators/windowLogic.ts',
      'engine/runtime/batchCodec.ts',
      'engine/runtime/threadLink.ts',
      'engine/runtime/threadChannel.ts',
      'engine/runtime/jsonTextEnvelope.ts',
      'engine/runtime/recordCopy.ts',
      'engine/operators/kafka/source',
      'engine/operators/kafka/sink',
      'engine/operators/postgres/source',
      'engine/operators/postgres/sink',
      'engine/operators/redis/redisSinkWriter.ts',
      'engine/operators/redis/redisCommitter.ts',
      'engine/sandbox',
    ]) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
  });

  it("gives a builtin's time to its caller's area, leaves idle out and sums the threads", () => {
    const poll = frame('poll', dist('engine/operators/sourceJsonl.js'));
    const parse = frame('parse');
    const flush = frame('flush', dist('engine/runtime/threadLink.js'));
    const post = frame('postMessage');
    const gc = frame('(garbage collector)');
    const idle = frame('(idle)');
    const user = frame('process', 'pipewright://operator/acc');
    const stream = frame('onwrite', 'node:internal/streams/writable');
    const write = frame('writeBuffer');
    const summary = profileAreas(
      [
        profileOf([
          [[poll, parse], 6],
          [[poll], 2],
          [[gc], 1],
          [[idle], 50],
        ]),
        profileOf([
          [[flush, post], 3],
          [[user], 4],
          [[idle], 10],
          [[stream, write], 2],
        ]),
      ],
      { top: 2 },
    );
    expect(summary.busyMs).toBe(18);
    const ms = Object.fromEntries(summary.areas.map((a) => [a.area, a.ms]));
    expect(ms).toMatchObject({
      source: 8,
      'thread transport': 3,
      'user code': 4,
      GC: 1,
      Node: 2,
      other: 0,
      state: 0,
    });
    expect(summary.areas.map((a) => a.area)).toEqual(AREAS);
    expect(summary.top).toEqual([
      { name: 'parse', ms: 6 },
      { name: 'process pipewright://operator/acc:1', ms: 4 },
    ]);
  });

  it('tabulates the rows that have a profile, without the areas none of them spent time in', () => {
    const poll = frame('poll', dist('engine/operators/sourceJsonl.js'));
    const get = frame('get', dist('engine/state/memoryKvStore.js'));
    const profile = profileAreas([
      profileOf([
        [[poll], 3],
        [[get], 1],
      ]),
    ]);
    expect(profileTable([{ label: 'baseline' }])).toEqual([]);
    const lines = profileTable([{ label: 'engine: memory', profile }, { label: 'baseline' }]);
    expect(lines[2]).toBe('| row | busy s | source | state | hottest functions (self s) |');
    expect(lines[4]).toBe(
      '| engine: memory | 0.00 | 75.0% | 25.0% | `poll engine/operators/sourceJsonl.js:1` 0.00; `get engine/state/memoryKvStore.js:1` 0.00 |',
    );
    expect(lines).toHaveLength(6);
  });
});
