// The run rows of the host, called as a client calls them (protocol messages through
// answerMessage) against the real engine: LevelDB state and checkpoints in a temporary folder,
// SES user code, events as the host sends them to every client.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';
import type {
  ParamsOf,
  RunCheckpointEvent,
  RunInfo,
  RunMetricsEvent,
  StateEntryView,
  StatePage,
} from '../../protocol/protocol.js';
import { answerMessage } from '../hostConnection.js';
import { createHostService } from '../hostService.js';

const session = hostSessionPerTest('pipewright-runs-');
const { result, failure, eventsOf, until, statusOf, ended } = session;
let dir = '';
beforeEach(() => {
  dir = session.dir;
});

const COUNT_CODE = `function process(r, ctx) {
  const count = ctx.state.value("count");
  const n = (count.get() ?? 0) + 1;
  count.set(n);
  ctx.state.map("items").set(r.item, r.i);
  ctx.emit({ user: ctx.key, n });
}`;

/** users u0..u36 (plus one user with a big map), keyed state per user: a count and a map of items. */
function usersJob(extra: Record<string, unknown> = {}) {
  return {
    format: 'pipewright.job/1',
    name: 'users',
    settings: { checkpointIntervalMs: 0, ...extra },
    operators: [
      { id: 'events', kind: 'source.jsonl', parallelism: 1, params: { path: 'events.jsonl' } },
      { id: 'per-user', kind: 'process', parallelism: 2, params: { code: COUNT_CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/counts.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'per-user', partition: 'hash', key: 'user' },
      { id: 'e2', from: 'per-user', to: 'out', partition: 'rebalance' },
    ],
  };
}

const USERS = 37;
const BIG_MAP = 2500;

async function writeUsersInput(): Promise<number> {
  const lines: string[] = [];
  for (let i = 0; i < 3700; i++) {
    lines.push(JSON.stringify({ user: `u${i % USERS}`, item: `i${String(i).padStart(5, '0')}`, i }));
  }
  for (let i = 0; i < BIG_MAP; i++) {
    lines.push(JSON.stringify({ user: 'big', item: `b${String(i).padStart(5, '0')}`, i }));
  }
  // A key that is not a string: it shows as JSON and sorts before the strings.
  lines.push(JSON.stringify({ user: 42, item: 'x', i: -1 }));
  await writeFile(join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
  return lines.length;
}

/** Every entry of a subtask, page by page. */
async function allPages(
  params: Omit<ParamsOf<'state.page'>, 'after'>,
): Promise<{ entries: StateEntryView[]; pages: number }> {
  const entries: StateEntryView[] = [];
  let after: string | undefined;
  let pages = 0;
  for (;;) {
    const page: StatePage = await result('state.page', {
      ...params,
      ...(after === undefined ? {} : { after }),
    });
    pages++;
    expect(page.entries.length).toBeLessThanOrEqual(params.limit);
    entries.push(...page.entries);
    if (page.next === undefined) return { entries, pages };
    expect(page.entries).toHaveLength(params.limit);
    after = page.next;
  }
}

const textOf = (key: unknown) => (typeof key === 'string' ? key : JSON.stringify(key));
const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('a run to its end', () => {
  it('runs the job as the CLI does, sends status, metrics and the output, and its state can be paged', async () => {
    const records = await writeUsersInput();
    const path = join(dir, 'users.job.json');
    const info = await result('run.start', {
      text: JSON.stringify(usersJob()),
      path,
      mode: 'run',
      previewSinks: false,
    });
    expect(info).toMatchObject({
      status: 'running',
      mode: 'run',
      step: 0,
      stateDir: join(dir, '.pipewright', 'users', 'state'),
      checkpointDir: join(dir, '.pipewright', 'users', 'checkpoints'),
    });
    const last = await ended(info.runId);
    expect(last.status).toBe('finished');
    expect(last.message).toMatch(
      new RegExp(`^done: ${records} records from the sources in \\d+\\.\\d\\d s$`),
    );
    expect(eventsOf('run.status', info.runId).map((s) => s.status)).toEqual([
      'starting',
      'running',
      'finished',
    ]);

    // The input was read beside the job file, and the sink wrote beside it too.
    const output = (await readFile(join(dir, 'out', 'counts.jsonl'), 'utf8')).trim().split('\n');
    expect(output).toHaveLength(records);

    const metrics = eventsOf('run.metrics', info.runId);
    expect(metrics.length).toBeGreaterThanOrEqual(2);
    const final = metrics.at(-1)!;
    const perUser = final.operators.find((o) => o.id === 'per-user')!;
    expect(perUser.recordsIn).toBe(records);
    expect(perUser.subtasks.map((s) => s.keyGroups)).toEqual([
      [0, 63],
      [64, 127],
    ]);
    expect(perUser.subtasks.every((s) => (s.stateEntries ?? 0) > 0 && (s.stateBytes ?? 0) > 0)).toBe(true);
    // Keys: every user (u0..u36, "big" and 42) holds a count and a map of items, once per state.
    expect(perUser.subtasks.every((s) => (s.stateKeys ?? 0) > 0)).toBe(true);
    expect(perUser.subtasks.reduce((sum, s) => sum + (s.stateKeys ?? 0), 0)).toBe(2 * (USERS + 2));
    expect(final.operators.find((o) => o.id === 'events')!.subtasks[0]!.stateEntries).toBeUndefined();
    expect(final.edges.map((e) => e.id)).toEqual(['e1', 'e2']);
    // An edge is held back as much as the operator it leaves: its most held-back subtask.
    expect(final.edges.map((e) => e.from)).toEqual(['events', 'per-user']);
    for (const edge of final.edges) {
      const held = final.operators
        .find((o) => o.id === edge.from)!
        .subtasks.map((s) => s.backPressuredTimeMsPerSecond ?? 0);
      expect(edge.backPressuredTimeMsPerSecond).toBe(Math.max(...held));
    }

    // The ended run's state, read from the LevelDB it left: every key once, in order, over pages.
    const keys: unknown[] = [];
    for (const subtask of [0, 1]) {
      const { entries, pages } = await allPages({
        runId: info.runId,
        operator: 'per-user',
        subtask,
        limit: 7,
      });
      expect(pages).toBeGreaterThan(2);
      // Two states per key: count (value) and items (map), ordered by key, then state name.
      const order = entries.map((e) => `${textOf(e.key)}|${e.state}`);
      const expected = [...order].sort((a, b) => {
        const [ka, sa] = a.split('|') as [string, string];
        const [kb, sb] = b.split('|') as [string, string];
        return utf8Order(ka === '42' ? '\x0142' : ka, kb === '42' ? '\x0142' : kb) || utf8Order(sa, sb);
      });
      expect(order).toEqual(expected);
      for (const entry of entries) if (entry.state === 'count') keys.push(entry.key);
    }
    const expectedKeys = [...Array.from({ length: USERS }, (_, i) => `u${i}`), 'big', 42];
    expect(keys).toHaveLength(expectedKeys.length);
    expect(new Set(keys)).toEqual(new Set(expectedKeys));
  });

  it('shows a value in full and a map bigger than a page as its count and first elements', async () => {
    await writeUsersInput();
    const path = join(dir, 'users.job.json');
    const info = await result('run.start', {
      text: JSON.stringify(usersJob()),
      path,
      mode: 'run',
      previewSinks: false,
    });
    await ended(info.runId);
    /** The first page of 10 of each subtask of "per-user", with `prefix`. */
    const firstPages = async (prefix: string) => {
      const entries: StateEntryView[] = [];
      for (const subtask of [0, 1]) {
        const page = await result('state.page', {
          runId: info.runId,
          operator: 'per-user',
          subtask,
          limit: 10,
          prefix,
        });
        entries.push(...page.entries);
      }
      return entries;
    };
    const found = await firstPages('bi');
    expect(found.map((e) => [e.key, e.state, e.type])).toEqual([
      ['big', 'count', 'value'],
      ['big', 'items', 'map'],
    ]);
    expect(found[0]!.value).toBe(BIG_MAP);
    const map = found[1]!;
    expect(map.elementCount).toBe(BIG_MAP);
    expect(map.value).toEqual(Array.from({ length: 10 }, (_, i) => [`b${String(i).padStart(5, '0')}`, i]));
    expect(map.bytes).toBeGreaterThan(BIG_MAP * 10);

    // A key that is not a string is found by its JSON text.
    const numeric = (await firstPages('4')).map((e) => [e.key, e.state, e.value]);
    expect(numeric).toEqual([
      [42, 'count', 1],
      [42, 'items', [['x', -1]]],
    ]);
  });

  it('pages with a prefix: only keys that start with it, in order, across pages', async () => {
    await writeUsersInput();
    const info = await result('run.start', {
      text: JSON.stringify(usersJob()),
      path: join(dir, 'users.job.json'),
      mode: 'run',
      previewSinks: false,
    });
    await ended(info.runId);
    const keys: string[] = [];
    for (const subtask of [0, 1]) {
      const { entries } = await allPages({
        runId: info.runId,
        operator: 'per-user',
        subtask,
        limit: 3,
        prefix: 'u1',
      });
      const subtaskKeys = entries.filter((e) => e.state === 'count').map((e) => e.key as string);
      expect(subtaskKeys).toEqual([...subtaskKeys].sort(utf8Order));
      keys.push(...subtaskKeys);
    }
    expect(keys.sort()).toEqual(['u1', 'u10', 'u11', 'u12', 'u13', 'u14', 'u15', 'u16', 'u17', 'u18', 'u19']);
    const none = await result('state.page', {
      runId: info.runId,
      operator: 'per-user',
      subtask: 0,
      limit: 5,
      prefix: 'nobody',
    });
    expect(none).toEqual({ entries: [] });
  });

  it('shows what preview sinks receive and writes no output', async () => {
    const records = await writeUsersInput();
    const info = await result('run.start', {
      text: JSON.stringify(usersJob({ checkpointIntervalMs: 50 })),
      path: join(dir, 'users.job.json'),
      mode: 'run',
      previewSinks: true,
    });
    expect(info.message).toBe('preview: sinks write nothing and no checkpoints are taken');
    expect((await ended(info.runId)).status).toBe('finished');
    const output = eventsOf('run.output', info.runId);
    expect(output.length).toBeGreaterThan(0);
    expect(output.every((o) => o.operator === 'out' && o.records.length <= 500)).toBe(true);
    const shown = output.reduce((n, o) => n + o.records.length + (o.dropped ?? 0), 0);
    expect(shown).toBe(records);
    expect(output[0]!.records[0]).toEqual({ user: expect.anything(), n: expect.any(Number) });
    expect(existsSync(join(dir, 'out', 'counts.jsonl'))).toBe(false);
    expect(eventsOf('run.checkpoint', info.runId)).toEqual([]);
  });

  it('says the records the sources read once each, however many edges leave a source', async () => {
    await writeFile(join(dir, 'events.jsonl'), '{"n":1}\n{"n":2}\n{"n":3}\n');
    const sink = (id: string) => ({ id, kind: 'sink.jsonl', params: { path: `${id}.jsonl` } });
    const job = {
      format: 'pipewright.job/1',
      name: 'fan-out',
      operators: [
        { id: 'events', kind: 'source.jsonl', params: { path: 'events.jsonl' } },
        sink('a'),
        sink('b'),
        sink('c'),
      ],
      edges: ['a', 'b', 'c'].map((to) => ({ id: `to-${to}`, from: 'events', to, partition: 'forward' })),
    };
    const info = await result('run.start', {
      text: JSON.stringify(job),
      path: join(dir, 'fan-out.job.json'),
      mode: 'run',
      previewSinks: false,
    });
    const last = await ended(info.runId);
    expect(last.status).toBe('finished');
    expect(last.message).toMatch(/^done: 3 records from the sources in /);
  });

  it('reports a failure naming the operator, and refuses what it cannot open', async () => {
    await writeFile(join(dir, 'events.jsonl'), '{"user":"a"}\n{"user":"b"}\n');
    const job = usersJob();
    job.operators[1]!.params = {
      code: 'function process(r, ctx) { if (r.user === "b") throw new Error("no b"); }',
    };
    const info = await result('run.start', {
      text: JSON.stringify(job),
      path: join(dir, 'users.job.json'),
      mode: 'run',
      previewSinks: false,
    });
    const last = await ended(info.runId);
    expect(last.status).toBe('failed');
    expect(last.message).toContain('operator "per-user"');
    expect(last.message).toContain('no b');

    await rm(join(dir, 'events.jsonl'));
    const missing = await failure('run.start', {
      text: JSON.stringify(usersJob()),
      path: join(dir, 'users.job.json'),
      mode: 'run',
      previewSinks: false,
    });
    expect(missing).toContain('events.jsonl');
    expect(eventsOf('run.status').at(-1)).toMatchObject({ status: 'failed' });
  });
});

/** An endless keyed job: k = i % 50, a count per key, a checkpoint every 50 ms. */
function endlessJob(count?: number) {
  return {
    format: 'pipewright.job/1',
    name: 'endless',
    settings: { checkpointIntervalMs: 50 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: {
          code: 'function generate(i) { return { k: "k" + (i % 50), i }; }',
          ratePerSec: 20_000,
          ...(count === undefined ? {} : { count }),
        },
      },
      {
        id: 'count',
        kind: 'process',
        parallelism: 2,
        params: {
          code: 'function process(r, ctx) { const s = ctx.state.value("n"); const n = (s.get() ?? 0) + 1; s.set(n); ctx.emit({ k: r.k, n }); }',
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
}

const sourceOut = (m: RunMetricsEvent) => m.operators.find((o) => o.id === 'gen')!.recordsOut;

async function countsOf(params: Omit<ParamsOf<'state.page'>, 'subtask' | 'limit' | 'operator'>) {
  const counts = new Map<string, number>();
  for (const subtask of [0, 1]) {
    const { entries } = await allPages({ ...params, operator: 'count', subtask, limit: 20 });
    for (const e of entries) counts.set(e.key as string, e.value as number);
  }
  return counts;
}

describe('a run driven from the designer', () => {
  it('pauses, resumes, stops at a final checkpoint and restarts from it exactly', async () => {
    const path = join(dir, 'endless.job.json');
    // Three seconds of records at 20,000 a second: the source must still be going when two
    // checkpoints, a pause and a resume have come, which on a loaded machine takes seconds.
    const total = 60_000;
    const text = JSON.stringify(endlessJob(total));
    const info = await result('run.start', { text, path, mode: 'run', previewSinks: false });
    const runId = info.runId;
    await until('two checkpoints', () => eventsOf('run.checkpoint', runId).length >= 2);

    // One run at a time: a second start is refused and the first goes on.
    expect(await failure('run.start', { text, path, mode: 'run', previewSinks: false })).toBe(
      `run.start: run ${runId} of job "endless" is still running; stop it before starting another (one run at a time)`,
    );

    const paused = await result('run.pause', { runId });
    expect(paused.status).toBe('paused');
    expect(statusOf(runId)!.status).toBe('paused');
    // Each thread holds at its next slice boundary, so a sample a worker took just before it
    // held may still arrive after the answer: wait for the source to hold still, then it must
    // stay still.
    const atPause = eventsOf('run.metrics', runId).length;
    await until('the source to hold still', () => {
      const samples = eventsOf('run.metrics', runId).slice(atPause).map(sourceOut);
      return samples.length >= 2 && samples.at(-1) === samples.at(-2);
    });
    const held = eventsOf('run.metrics', runId).length;
    await until('two metrics samples while paused', () => eventsOf('run.metrics', runId).length >= held + 2);
    const whilePaused = eventsOf('run.metrics', runId)
      .slice(held - 1)
      .map(sourceOut);
    expect(new Set(whilePaused).size).toBe(1);

    // The live state, read while the run holds it open.
    const live = await countsOf({ runId });
    expect(live.size).toBe(50);
    const counted = eventsOf('run.metrics', runId)
      .at(-1)!
      .operators.find((o) => o.id === 'count')!.recordsIn;
    expect([...live.values()].reduce((a, b) => a + b, 0)).toBe(counted);

    expect((await result('run.resume', { runId })).status).toBe('running');
    await until('the source to go on', () => {
      const latest = eventsOf('run.metrics', runId).at(-1);
      return latest !== undefined && sourceOut(latest) > whilePaused[0]!;
    });

    const stopped = await result('run.stop', { runId });
    expect(stopped.status).toBe('stopped');
    const checkpoints = eventsOf('run.checkpoint', runId);
    const final = checkpoints.at(-1)!;
    expect(final.status).toBe('completed');
    expect(stopped.message).toContain(`stopped at checkpoint ${final.id}`);
    expect(eventsOf('run.status', runId).map((s) => s.status)).toEqual([
      'starting',
      'running',
      'paused',
      'running',
      'stopped',
    ]);
    expect(final.subtasks.map((s) => `${s.operator}#${s.subtask}`)).toEqual([
      'gen#0',
      'count#0',
      'count#1',
      'out#0',
    ]);

    // The checkpoint list, newest first, with what the run reported for each.
    const listed: RunCheckpointEvent[] = await result('run.checkpoints', { path, text });
    expect(listed[0]).toEqual(final);
    expect(listed.map((c) => c.id)).toEqual([...listed.map((c) => c.id)].sort((a, b) => b - a));
    expect(listed.every((c) => c.status === 'completed')).toBe(true);
    // Another host never saw them taken: the same figures from the metadata, without the timings.
    const other = createHostService({
      transport: 'websocket',
      version: '0',
      dataDir: join(dir, 'd2'),
      examplesDir: dir,
    });
    const response = await answerMessage(other, {
      type: 'request',
      id: 1,
      method: 'run.checkpoints',
      params: { path, text },
    });
    const fromFiles = response.result as RunCheckpointEvent[];
    expect(fromFiles.map((c) => [c.id, c.bytes, c.fullBytes, c.inFlightRecords, c.triggeredAt])).toEqual(
      listed.map((c) => [c.id, c.bytes, c.fullBytes, c.inFlightRecords, c.triggeredAt]),
    );
    expect(fromFiles[0]!.runId).toBe('');
    expect(
      fromFiles[0]!.subtasks.every((s) => s.syncMs === 0 && s.asyncMs === 0 && s.alignmentMs === 0),
    ).toBe(true);
    expect(fromFiles[0]!.subtasks.map((s) => s.bytes)).toEqual(final.subtasks.map((s) => s.bytes));

    // A key compared between two checkpoints: read from each checkpoint's own files.
    const older = listed[1]!.id;
    const atFinal = await countsOf({ runId, checkpointId: final.id });
    const atOlder = await countsOf({ runId, checkpointId: older });
    expect(atFinal.size).toBe(50);
    expect(atFinal.get('k7')!).toBeGreaterThan(atOlder.get('k7') ?? 0);
    // Records the run took after the final barrier, before it halted, are in its live state only.
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    expect(sum(atFinal)).toBeLessThanOrEqual(sum(await countsOf({ runId })));
    expect(sum(atFinal)).toBeGreaterThan(sum(atOlder));

    // Restart from that checkpoint and run to the end: every record counted exactly once.
    const restarted = await result('run.start', {
      text,
      path,
      mode: 'run',
      previewSinks: false,
      restore: final.id,
    });
    expect(restarted.runId).not.toBe(runId);
    expect((await ended(restarted.runId)).status).toBe('finished');
    const counts = await countsOf({ runId: restarted.runId });
    expect([...counts.values()]).toEqual(Array.from({ length: 50 }, () => total / 50));
    const output = (await readFile(join(dir, 'out.jsonl'), 'utf8')).trim().split('\n');
    expect(output).toHaveLength(total);
    expect(new Set(output).size).toBe(total);

    // The old run is gone with its state folder; its id is refused by name.
    expect(await failure('state.page', { runId, operator: 'count', subtask: 0, limit: 5 })).toBe(
      `state.page: there is no run ${runId}; this host's run is ${restarted.runId} (job "endless")`,
    );
  });

  it('restarts from the latest checkpoint, and says when there is none', async () => {
    const path = join(dir, 'endless.job.json');
    const text = JSON.stringify(endlessJob());
    const fresh = await result('run.start', {
      text,
      path,
      mode: 'run',
      previewSinks: false,
      restore: 'latest',
    });
    expect(fresh.message).toBe(`no usable completed checkpoint in ${fresh.checkpointDir}: starting fresh`);
    await until('a checkpoint', () => eventsOf('run.checkpoint', fresh.runId).length >= 1);
    const stopped = await result('run.stop', { runId: fresh.runId });
    const last = eventsOf('run.checkpoint', fresh.runId).at(-1)!;
    expect(stopped.status).toBe('stopped');
    const again = await result('run.start', {
      text,
      path,
      mode: 'run',
      previewSinks: false,
      restore: 'latest',
    });
    expect(again.message).toBe(`restoring checkpoint ${last.id} from ${again.checkpointDir}`);
    await result('run.stop', { runId: again.runId });
    expect(
      await failure('run.start', { text, path, mode: 'run', previewSinks: false, restore: 999 }),
    ).toMatch(/^run\.start: cannot restore: there is no checkpoint 999 in .*; it holds checkpoints? \d/);
  });

  it('keeps runs in the app data folder when the host is told to (the desktop app), one folder per job file', async () => {
    const runsDir = join(dir, 'data', 'runs');
    await session.reopen({ transport: 'messageport', runsDir });
    const text = JSON.stringify(endlessJob());
    const path = join(dir, 'a', 'endless.job.json');
    const other = join(dir, 'b', 'endless.job.json');
    await mkdir(dirname(path));
    await mkdir(dirname(other));

    const info = await result('run.start', { text, path, mode: 'run', previewSinks: false });
    await until('a checkpoint', () => eventsOf('run.checkpoint', info.runId).length >= 1);
    await result('run.stop', { runId: info.runId });
    const home = dirname(info.stateDir);
    expect(dirname(home)).toBe(runsDir);
    expect(basename(home)).toMatch(/^endless-[0-9a-f]{12}$/);
    expect(info.checkpointDir).toBe(join(home, 'checkpoints'));
    // The job's own folder gets its output and nothing else.
    expect((await readdir(dirname(path))).sort()).toEqual(['out.jsonl']);
    // The same file finds its checkpoints again; another file of the same name has its own.
    const listed = await result('run.checkpoints', { path, text });
    expect(listed[0]).toEqual(eventsOf('run.checkpoint', info.runId).at(-1));
    expect(await result('run.checkpoints', { path: other, text })).toEqual([]);
    const again = await result('run.start', {
      text,
      path,
      mode: 'run',
      previewSinks: false,
      restore: 'latest',
    });
    expect(again.message).toMatch(/^restoring checkpoint \d+ from /);
    expect(again.checkpointDir).toBe(info.checkpointDir);
    await result('run.stop', { runId: again.runId });
    const elsewhere = await result('run.start', { text, path: other, mode: 'run', previewSinks: false });
    expect(dirname(dirname(elsewhere.stateDir))).toBe(runsDir);
    expect(elsewhere.stateDir).not.toBe(info.stateDir);
    await result('run.stop', { runId: elsewhere.runId });
  });

  it('sends metrics at least once a second, and a stop from pause still ends at a checkpoint', async () => {
    const info = await result('run.start', {
      text: JSON.stringify(endlessJob()),
      path: join(dir, 'endless.job.json'),
      mode: 'run',
      previewSinks: false,
    });
    await until('five metrics samples', () => eventsOf('run.metrics', info.runId).length >= 5);
    const times = eventsOf('run.metrics', info.runId).map((m) => m.elapsedMs);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThan(1000);
    await result('run.pause', { runId: info.runId });
    const stopped = await result('run.stop', { runId: info.runId });
    expect(stopped.status).toBe('stopped');
    expect(eventsOf('run.checkpoint', info.runId).at(-1)!.status).toBe('completed');
    // Pausing or resuming an ended run says why not.
    expect(await failure('run.pause', { runId: info.runId })).toBe(
      `cannot pause run ${info.runId} of job "endless": it is stopped`,
    );
  });
});

describe('stops and restores that cannot be exact', () => {
  it('stops a run without checkpoints by ending its sources, and refuses a checkpoint the job cannot follow', async () => {
    const path = join(dir, 'endless.job.json');
    const plain = endlessJob();
    plain.settings.checkpointIntervalMs = 0;
    const first = await result('run.start', {
      text: JSON.stringify(plain),
      path,
      mode: 'run',
      previewSinks: false,
    });
    await until(
      'some records',
      () => (eventsOf('run.metrics', first.runId).at(-1)?.operators[2]?.recordsIn ?? 0) > 0,
    );
    const stopped = await result('run.stop', { runId: first.runId });
    expect(stopped.status).toBe('stopped');
    expect(stopped.message).toMatch(
      /^stopped after \d+ records from the sources in .* \(no checkpoint: the records in flight were completed\)$/,
    );

    const checkpointed = await result('run.start', {
      text: JSON.stringify(endlessJob()),
      path,
      mode: 'run',
      previewSinks: false,
    });
    await until('a checkpoint', () => eventsOf('run.checkpoint', checkpointed.runId).length > 0);
    await result('run.stop', { runId: checkpointed.runId });
    const rekeyed = endlessJob();
    rekeyed.edges[0]!.key = 'i';
    const message = await failure('run.start', {
      text: JSON.stringify(rekeyed),
      path,
      mode: 'run',
      previewSinks: false,
      restore: 'latest',
    });
    expect(message).toMatch(
      /^operator "count" is keyed by i now but by k in checkpoint \d+; its state cannot follow a new key$/,
    );
  });
});

describe('refusals', () => {
  const valid = () => ({
    text: JSON.stringify(endlessJob(10)),
    path: join(dir, 'endless.job.json'),
    mode: 'run' as const,
    previewSinks: false,
  });

  it('names the param that is wrong', async () => {
    expect(await failure('run.start', { ...valid(), text: 3 })).toBe(
      'run.start: params.text must be a string',
    );
    expect(await failure('run.start', { ...valid(), path: 'endless.job.json' })).toBe(
      'run.start: params.path must be an absolute path (got "endless.job.json")',
    );
    expect(await failure('run.start', { ...valid(), mode: 'fast' })).toBe(
      'run.start: params.mode must be "run" or "debug"',
    );
    expect(await failure('run.start', { ...valid(), previewSinks: 'yes' })).toBe(
      'run.start: params.previewSinks must be true or false',
    );
    expect(await failure('run.start', { ...valid(), restore: -1 })).toBe(
      'run.start: params.restore must be "latest" or a checkpoint id (a positive integer)',
    );
    expect(await failure('run.start', { ...valid(), breakpoints: [{ id: 'b', type: 'sometimes' }] })).toBe(
      'run.start: params.breakpoints[0].type must be "operator", "condition", "stateKey", "timer", "watermark" or "row"',
    );
    expect(
      await failure('run.start', { ...valid(), breakpoints: [{ id: 'b', type: 'row', key: 'a7' }] }),
    ).toBe('run.start: params.table must be a string');
    expect(await failure('run.pause', { runId: 7 })).toBe('run.pause: params.runId must be a string');
    expect(await failure('state.page', { runId: 'r', operator: 'count', subtask: 0, limit: 0 })).toBe(
      'state.page: params.limit must be an integer from 1 to 1000',
    );
    expect(await failure('state.page', { runId: 'r', operator: 'count', subtask: -1, limit: 5 })).toBe(
      'state.page: params.subtask must be an integer from 0 to 32767',
    );
    expect(await failure('run.trace', { runId: 'r', step: 0, emitted: 0 })).toBe(
      'run.trace: params.step must be an integer from 1 to 9007199254740991',
    );
    expect(await failure('run.checkpoints', { path: join(dir, 'x.job.json') })).toBe(
      'run.checkpoints: params.text must be a string',
    );
  });

  it('refuses an invalid job with its problems, and an unknown run by its id', async () => {
    const job = endlessJob(10);
    job.edges[0]!.to = 'nowhere';
    const message = await failure('run.start', { ...valid(), text: JSON.stringify(job) });
    expect(message).toMatch(/^run\.start: the job in .*endless\.job\.json is not valid \(\d+ problems?\): /);
    expect(message).toContain('"nowhere"');
    expect(await failure('run.start', { ...valid(), text: '{"format":' })).toMatch(/not valid JSON/);
    expect(await failure('run.start', { ...valid(), path: join(dir, 'nowhere', 'a.job.json') })).toBe(
      `run.start: the folder of ${join(dir, 'nowhere', 'a.job.json')} does not exist; save the job first`,
    );
    expect(await failure('run.stop', { runId: 'nope' })).toBe(
      'run.stop: there is no run nope; no run has started since the host did',
    );
    expect(eventsOf('run.status')).toEqual([]);
  });

  it('refuses state pages of operators without state, of subtasks that do not exist and with a forged cursor', async () => {
    const info = await result('run.start', valid());
    await ended(info.runId);
    const page = (p: Partial<ParamsOf<'state.page'>>) =>
      failure('state.page', { runId: info.runId, operator: 'count', subtask: 0, limit: 5, ...p });
    expect(await page({ operator: 'gen' })).toBe(
      'state.page: operator "gen" keeps no keyed state (only operators with code whose every input is hash-partitioned do)',
    );
    expect(await page({ operator: 'ghost' })).toBe('state.page: job "endless" has no operator "ghost"');
    expect(await page({ subtask: 2 })).toBe(
      'state.page: operator "count" has 2 subtasks (0 to 1); there is no subtask 2',
    );
    expect(await page({ after: 'not a cursor' })).toBe(
      'state.page: params.after is not a cursor this host handed out (pass a page\'s "next")',
    );
    // A run slower than its 50 ms interval (a loaded machine) has completed a few checkpoints, or none.
    expect(await page({ checkpointId: 5 })).toMatch(
      /^checkpoint 5 is not a completed checkpoint in .+ \((there is none|there are [1-4](, [1-4])*)\)$/,
    );
    expect(await page({ checkpointId: 5 })).toContain(info.checkpointDir);
  });

  it('refuses a preview run from a checkpoint, and the debug rows on a plain run', async () => {
    expect(await failure('run.start', { ...valid(), previewSinks: true, restore: 'latest' })).toBe(
      'run.start: a run with preview sinks writes nothing, checkpoints included, so it cannot restart from one; turn preview off to restart from a checkpoint',
    );
    const info: RunInfo = await result('run.start', valid());
    await ended(info.runId);
    expect(await failure('run.step', { runId: info.runId })).toBe(
      `run.step: run ${info.runId} runs in mode "run"; start it in mode "debug" to step, set breakpoints or trace records`,
    );
  });
});
