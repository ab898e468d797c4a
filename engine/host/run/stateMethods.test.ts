// The state rows a designer uses to find and compare keys, through the host's method table on
// the real engine (LevelDB, checkpoints in a temporary folder): a key found by the key alone on
// whichever subtask owns it, live and in a checkpoint; a map's elements page by page; only the
// checkpoints still on disk offered; a key compared between two of them, element by element.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';
import { keyGroupOf, subtaskOfKeyGroup } from '../../graph/keyGroups.js';

const session = hostSessionPerTest('pipewright-state-rows-');
const { result, failure, eventsOf, until } = session;
let dir = '';
beforeEach(() => {
  dir = session.dir;
});

const RECORDS = 60;
const PARALLELISM = 3;
const MAX_PARALLELISM = 128;

/** Keys k0..k3; per key a count and a map of the records' items (k1 drops one every other record). */
const job = {
  format: 'pipewright.job/1',
  name: 'items',
  settings: { checkpointIntervalMs: 20, checkpointsRetained: 2, maxParallelism: MAX_PARALLELISM },
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      parallelism: 1,
      params: { code: 'function generate(i) { return { k: "k" + (i % 4), i }; }', count: RECORDS },
    },
    {
      id: 'count',
      kind: 'process',
      parallelism: PARALLELISM,
      params: {
        code: `function process(r, ctx) {
  const n = ctx.state.value("n");
  n.set((n.get() ?? 0) + 1);
  const items = ctx.state.map("items");
  items.set("i" + String(r.i).padStart(2, "0"), r.i * 10);
  if (r.i % 8 === 1 && r.i > 1) items.delete("i" + String(r.i - 4).padStart(2, "0"));
}`,
      },
    },
  ],
  edges: [{ id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' }],
};

/** A debug run resumed to its end: checkpoints every 20 record steps, the last 2 kept. */
async function finishedRun(): Promise<string> {
  const info = await result('run.start', {
    text: JSON.stringify(job),
    path: join(dir, 'items.job.json'),
    mode: 'debug',
    previewSinks: false,
  });
  await result('run.resume', { runId: info.runId });
  await until('the end', () => eventsOf('run.status').at(-1)?.status === 'finished');
  return info.runId;
}

const ownerOf = (key: unknown) =>
  subtaskOfKeyGroup(keyGroupOf(key, MAX_PARALLELISM), PARALLELISM, MAX_PARALLELISM);

describe('finding and comparing keys', () => {
  it('finds a key on the subtask that owns it, live and in a checkpoint, and pages its map', async () => {
    const runId = await finishedRun();
    for (const k of ['k0', 'k1', 'k2', 'k3']) {
      const { found } = await result('state.key', { runId, operator: 'count', key: k });
      expect(found).toHaveLength(1);
      const [at] = found;
      expect(at).toMatchObject({ key: k, keyGroup: keyGroupOf(k, MAX_PARALLELISM), subtask: ownerOf(k) });
      expect(at!.entries.map((e) => [e.state, e.type, e.value ?? null])).toEqual([
        ['items', 'map', expect.any(Array)],
        ['n', 'value', RECORDS / 4],
      ]);
    }
    // "7" may be the string or the number: both are looked for where each would live; neither is there.
    const { found: seven } = await result('state.key', { runId, operator: 'count', key: '7' });
    expect(seven.map((f) => [f.key, f.subtask, f.entries.length])).toEqual([
      ['7', ownerOf('7'), 0],
      [7, ownerOf(7), 0],
    ]);

    // k1's items: records 1, 5, 9, ..., 57, less those records 9, 17, ... dropped (5, 13, ..., 53).
    const items = Array.from({ length: RECORDS }, (_, i) => i)
      .filter((i) => i % 4 === 1 && !(i % 8 === 5 && i + 4 < RECORDS))
      .map((i) => `i${String(i).padStart(2, '0')}`);
    const { found } = await result('state.key', { runId, operator: 'count', key: 'k1' });
    const map = found[0]!.entries[0]!;
    expect(map.elementCount).toBe(items.length);
    const seen = (map.value as [string, number][]).map(([item]) => item);
    let after = map.elementsAfter;
    while (after !== undefined) {
      const page = await result('state.elements', {
        runId,
        operator: 'count',
        key: 'k1',
        state: 'items',
        type: 'map',
        after,
        limit: 3,
      });
      seen.push(...page.elements.map((e) => e.element as string));
      after = page.next;
    }
    expect(seen).toEqual(items);

    // In a checkpoint: the count as it stood then.
    const { ids } = await result('state.checkpoints', { runId });
    const { found: then } = await result('state.key', {
      runId,
      operator: 'count',
      key: 'k1',
      checkpointId: ids.at(-1)!,
    });
    expect(then[0]!.subtask).toBe(ownerOf('k1'));
    const n = then[0]!.entries.find((e) => e.state === 'n')!.value as number;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(RECORDS / 4);
  });

  it('offers only the checkpoints still on disk, and compares a key between two, element by element', async () => {
    const runId = await finishedRun();
    const completed = eventsOf('run.checkpoint')
      .filter((c) => c.status === 'completed')
      .map((c) => c.id);
    expect(completed.length).toBeGreaterThan(2);
    const { ids, retained } = await result('state.checkpoints', { runId });
    expect(retained).toBe(2);
    expect(ids).toEqual([...new Set(completed)].sort((a, b) => b - a).slice(0, 2));
    // An older one is gone: reading it says which are there.
    const gone = Math.min(...completed);
    expect(
      await failure('state.page', { runId, operator: 'count', subtask: 0, limit: 5, checkpointId: gone }),
    ).toMatch(
      new RegExp(
        `checkpoint ${gone} is not a completed checkpoint in .* \\(there are ${[...ids].reverse().join(', ')}\\)$`,
      ),
    );

    const [newest, older] = ids as [number, number];
    const view = await result('state.compare', {
      runId,
      operator: 'count',
      key: 'k1',
      from: older,
      to: 'live',
      limit: 100,
    });
    expect(view).toMatchObject({ key: 'k1', fromSubtask: ownerOf('k1'), toSubtask: ownerOf('k1') });
    const [items, n] = view.states;
    expect(n).toMatchObject({ state: 'n', type: 'value', change: 'changed', after: RECORDS / 4 });
    expect(items).toMatchObject({
      state: 'items',
      type: 'map',
      change: 'changed',
      countAfter: expect.any(Number),
    });
    // What came after the older checkpoint: items added (and some removed), none changed in value.
    expect(items!.changes!.length).toBeGreaterThan(0);
    expect(items!.changes!.every((c) => c.change !== 'changed')).toBe(true);
    for (const c of items!.changes!) {
      const i = Number((c.element as string).slice(1));
      if (c.change === 'added') expect(c.after).toBe(i * 10);
      else expect(c.before).toBe(i * 10);
    }
    expect(items!.countAfter! - items!.countBefore!).toBe(
      items!.changes!.filter((c) => c.change === 'added').length -
        items!.changes!.filter((c) => c.change === 'removed').length,
    );
    const same = await result('state.compare', {
      runId,
      operator: 'count',
      key: 'k1',
      from: newest,
      to: newest,
      limit: 100,
    });
    expect(same.states.map((s) => s.change)).toEqual(['same', 'same']);
    expect(
      await failure('state.compare', {
        runId,
        operator: 'count',
        key: 'k1',
        from: gone,
        to: 'live',
        limit: 5,
      }),
    ).toMatch(new RegExp(`^checkpoint ${gone} is not a completed checkpoint`));
  });
});
