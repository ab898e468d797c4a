// The backpressure measure (loadMeter.ts, subtaskLoad.ts) on a clock of its own: the executor's
// marks at slice boundaries are played by hand, so each rule is seen exactly. The same measure on
// real runs: test/backpressure.test.ts (the CLI) and e2e/backpressure.test.ts (the designer).
import { describe, expect, it } from 'vitest';
import { LoadMeter, type MeteredSubtask } from './loadMeter.js';
import { SubtaskLoad } from './subtaskLoad.js';

interface Fake extends MeteredSubtask {
  work: boolean;
  room: boolean;
  due: number | undefined;
  recordsIn: number;
}

/** A subtask `label` ("op#0") whose output goes to the subtasks `to`. */
function fake(label: string, to: readonly string[] = [], isSource = false): Fake {
  const s: Fake = {
    label,
    isSource,
    recordsIn: 0,
    load: new SubtaskLoad(),
    work: isSource,
    room: true,
    due: undefined,
    emitter: {
      canSend: () => s.room,
      allChannels: to.map((target) => {
        const [op, index] = target.split('#');
        return { edge: { to: op, feedback: false }, toSubtask: Number(index) } as never;
      }),
    },
    hasWork: () => s.work,
    dueAt: () => s.due,
  };
  return s;
}

const figures = (s: Fake) => s.load.perSecond()!;

describe('LoadMeter on one thread', () => {
  it('gen → slow → out: slow busy, gen held back while its consumers have the thread, out idle', () => {
    const gen = fake('gen#0', ['slow#0'], true);
    const slow = fake('slow#0', ['out#0']);
    const out = fake('out#0');
    const meter = new LoadMeter([gen, slow, out], 0);
    let t = 0;
    // The deterministic executor's cycle: gen makes a slice (1 ms), slow takes it (150 ms), out
    // writes it (1 ms). Behind its schedule, gen could make more all along.
    for (let cycle = 0; cycle < 10; cycle++) {
      meter.mark(t, gen);
      t += 1;
      gen.recordsIn += 50;
      slow.work = true;
      meter.mark(t, slow);
      t += 150;
      slow.work = false;
      out.work = true;
      meter.mark(t, out);
      t += 1;
      out.work = false;
    }
    meter.mark(t, gen);
    expect(figures(gen)).toEqual({
      busyTimeMsPerSecond: 7,
      backPressuredTimeMsPerSecond: 993,
      idleTimeMsPerSecond: 0,
    });
    expect(figures(slow)).toEqual({
      busyTimeMsPerSecond: 987,
      backPressuredTimeMsPerSecond: 0,
      idleTimeMsPerSecond: 13,
    });
    expect(figures(out)).toEqual({
      busyTimeMsPerSecond: 7,
      backPressuredTimeMsPerSecond: 0,
      idleTimeMsPerSecond: 993,
    });
  });

  it('gen → quick → slow → out: both operators before slow held back, the one after it not', () => {
    // The four-operator job, whose fill showed the edge after slow, not those before it.
    const gen = fake('gen#0', ['quick#0'], true);
    const quick = fake('quick#0', ['slow#0']);
    const slow = fake('slow#0', ['out#0']);
    const out = fake('out#0');
    const meter = new LoadMeter([gen, quick, slow, out], 0);
    let t = 0;
    for (let cycle = 0; cycle < 10; cycle++) {
      // quick has taken a slice and has the next one waiting while slow works off the last.
      quick.work = true;
      slow.work = true;
      meter.mark(t, slow);
      t += 100;
      slow.work = false;
      out.work = true;
      meter.mark(t, out);
      t += 1;
      out.work = false;
      meter.mark(t, quick);
      t += 1;
      meter.mark(t, gen);
      t += 1;
      gen.recordsIn += 50;
    }
    meter.settle(t);
    // quick is busy in its own slices and while gen, upstream of it, has the thread.
    expect([gen, quick, slow, out].map(figures)).toEqual([
      { busyTimeMsPerSecond: 10, backPressuredTimeMsPerSecond: 990, idleTimeMsPerSecond: 0 },
      { busyTimeMsPerSecond: 19, backPressuredTimeMsPerSecond: 981, idleTimeMsPerSecond: 0 },
      { busyTimeMsPerSecond: 971, backPressuredTimeMsPerSecond: 0, idleTimeMsPerSecond: 29 },
      { busyTimeMsPerSecond: 10, backPressuredTimeMsPerSecond: 0, idleTimeMsPerSecond: 990 },
    ]);
  });

  it('a subtask whose output has no room is held back, even while nothing runs', () => {
    const producer = fake('p#0', ['c#0']);
    producer.work = true;
    producer.room = false;
    const meter = new LoadMeter([producer], 0);
    meter.mark(0, undefined);
    meter.settle(1000);
    expect(figures(producer).backPressuredTimeMsPerSecond).toBe(1000);
  });

  it('a sibling waiting only for the thread is busy, not held back; one with nothing to do is idle', () => {
    const a = fake('op#0', ['sink#0']);
    const b = fake('op#1', ['sink#0']);
    const sink = fake('sink#0');
    a.work = true;
    b.work = true;
    const meter = new LoadMeter([a, b, sink], 0);
    meter.mark(0, b);
    meter.settle(1000);
    expect(figures(a)).toEqual({
      busyTimeMsPerSecond: 1000,
      backPressuredTimeMsPerSecond: 0,
      idleTimeMsPerSecond: 0,
    });
    expect(figures(sink).idleTimeMsPerSecond).toBe(1000);
  });

  it('a source ahead of its schedule is idle until its records are due, then held back', () => {
    const gen = fake('gen#0', ['map#0'], true);
    const map = fake('map#0');
    map.work = true;
    gen.recordsIn = 1;
    const meter = new LoadMeter([gen, map], 0);
    gen.due = 400;
    meter.mark(0, map);
    meter.settle(1000);
    expect(figures(gen)).toEqual({
      busyTimeMsPerSecond: 0,
      backPressuredTimeMsPerSecond: 600,
      idleTimeMsPerSecond: 400,
    });
  });

  it("a source's slice that waits for its schedule, or makes nothing, is idle", () => {
    const gen = fake('gen#0', [], true);
    const meter = new LoadMeter([gen], 0);
    // Its records are due at 300: it waits in its slice, then makes them (2 ms).
    gen.due = 300;
    meter.mark(0, gen);
    meter.settle(300);
    gen.recordsIn += 50;
    meter.mark(302, undefined);
    // A poll that made nothing (a server with nothing new) and the time after it: idle.
    gen.due = undefined;
    meter.mark(302, gen);
    meter.mark(700, undefined);
    meter.settle(1002);
    // 2 ms busy in 1,002 measured.
    expect(figures(gen)).toEqual({
      busyTimeMsPerSecond: 2,
      backPressuredTimeMsPerSecond: 0,
      idleTimeMsPerSecond: 998,
    });
  });

  it('a pause is not measured, and a run that ended keeps the figures of its last second', () => {
    const sink = fake('sink#0');
    sink.work = true;
    const meter = new LoadMeter([sink], 0);
    meter.mark(0, sink);
    meter.settle(500);
    meter.skip(10_000);
    sink.work = false;
    meter.mark(10_000, undefined);
    meter.end(10_500);
    meter.settle(60_000);
    expect(figures(sink)).toEqual({
      busyTimeMsPerSecond: 500,
      backPressuredTimeMsPerSecond: 0,
      idleTimeMsPerSecond: 500,
    });
  });
});

describe('SubtaskLoad.perSecond', () => {
  it('covers the last second of measured time, and the three add up to 1000', () => {
    const load = new SubtaskLoad();
    expect(load.perSecond()).toBeUndefined();
    // Two seconds busy, read every 200 ms, then a second idle.
    for (let t = 200; t <= 2000; t += 200) {
      load.busyMs += 200;
      load.perSecond();
    }
    for (let t = 200; t <= 1000; t += 200) {
      load.idleMs += 200;
      expect(load.perSecond()).toEqual({
        busyTimeMsPerSecond: 1000 - t,
        backPressuredTimeMsPerSecond: 0,
        idleTimeMsPerSecond: t,
      });
    }
    load.backPressuredMs += 1;
    const f = load.perSecond()!;
    expect(f.busyTimeMsPerSecond + f.backPressuredTimeMsPerSecond + f.idleTimeMsPerSecond).toBe(1000);
  });
});

describe('LoadMeter on a thread of a long chain', () => {
  /** A source and `n - 1` operators after it, each subtask feeding the next, counting looks. */
  function chainOf(n: number) {
    let looks = 0;
    const subtasks = Array.from({ length: n }, (_, i) => {
      const s = fake(`op${i}#0`, i + 1 < n ? [`op${i + 1}#0`] : [], i === 0);
      const hasWork = s.hasWork;
      s.hasWork = () => {
        looks++;
        return hasWork();
      };
      return s;
    });
    return { subtasks, looks: () => looks };
  }

  it('passes over its subtasks every few ms, not at every slice: linear work, whatever the chain', () => {
    // A record taken down a chain of 2,000 is 2,000 slices of a few µs: a pass over the chain at
    // each was 4,000,000 looks a record. Here 10,000 slices in 50 ms: a pass every 4 ms.
    const n = 2000;
    const { subtasks, looks } = chainOf(n);
    const meter = new LoadMeter(subtasks, 0);
    let t = 0;
    for (let round = 0; round < 5; round++) {
      for (const s of subtasks) {
        meter.mark(t, s);
        t += 0.005;
      }
    }
    expect(looks()).toBeLessThan(n * 20);
  });

  it('samples what they do: the last of the chain busy all along, every other one held back', () => {
    const n = 1000;
    const { subtasks } = chainOf(n);
    for (const s of subtasks) s.work = true;
    const meter = new LoadMeter(subtasks, 0);
    const last = subtasks[n - 1]!;
    // The last subtask has the thread in slices of 0.5 ms, a second long; each other one has work
    // it cannot hand on while its consumer downstream has the thread.
    for (let t = 0; t <= 1000; t += 0.5) meter.mark(t, last);
    expect(figures(last).busyTimeMsPerSecond).toBe(1000);
    for (const s of [subtasks[1]!, subtasks[500]!, subtasks[n - 2]!])
      expect(figures(s).backPressuredTimeMsPerSecond).toBe(1000);
  });
});
