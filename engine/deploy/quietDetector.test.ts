import { describe, expect, it } from 'vitest';
import type { PartStatus } from '../runtime/partExecutor.js';
import { type QuietAction, QuietDetector } from './quietDetector.js';

const status = (over: Partial<PartStatus> = {}): PartStatus => ({
  quiet: true,
  sent: 0,
  received: 0,
  awaitingLoop: 0,
  drainingLoop: 0,
  unfinished: 1,
  waitsOnNothing: false,
  ...over,
});

function detector(threads: number) {
  const probes: number[] = [];
  const actions: QuietAction[] = [];
  const d = new QuietDetector(
    threads,
    (round) => probes.push(round),
    (action) => actions.push(action),
  );
  return { d, probes, actions };
}

describe('QuietDetector', () => {
  it('asks again once every thread is quiet with nothing in flight, and acts when nothing moved', () => {
    const { d, probes, actions } = detector(2);
    d.reported(0, status({ sent: 3, received: 1, awaitingLoop: 1 }));
    expect(probes).toEqual([]);
    d.reported(1, status({ sent: 1, received: 3 }));
    expect(probes).toEqual([1]);
    d.probed(0, 1, status({ sent: 3, received: 1, awaitingLoop: 1 }));
    expect(actions).toEqual([]);
    d.probed(1, 1, status({ sent: 1, received: 3 }));
    expect(actions).toEqual(['tellLoopsEnded']);
  });

  it('does not ask while a message is in flight (sent and received differ)', () => {
    const { d, probes } = detector(2);
    d.reported(0, status({ sent: 2, received: 0 }));
    d.reported(1, status({ sent: 0, received: 1 }));
    expect(probes).toEqual([]);
    d.reported(1, status({ sent: 0, received: 2 }));
    expect(probes).toEqual([1]);
  });

  it('does nothing when a thread moved between the two waves (the four-counter rule)', () => {
    const { d, probes, actions } = detector(2);
    d.reported(0, status({ sent: 1, received: 1 }));
    d.reported(1, status({ sent: 1, received: 1 }));
    // Thread 1 received one more and sent one more in between: the sums still agree.
    d.probed(0, 1, status({ sent: 1, received: 2 }));
    d.probed(1, 1, status({ sent: 2, received: 1 }));
    expect(actions).toEqual([]);
    // The answers are quiet with nothing in flight: they start the next round themselves.
    expect(probes).toEqual([1, 2]);
  });

  it('starts the next round from the answers when the thread that moved reported during the wave', () => {
    const { d, probes, actions } = detector(2);
    d.reported(0, status({ sent: 1, received: 0 }));
    d.reported(1, status({ sent: 0, received: 1 }));
    expect(probes).toEqual([1]);
    // Thread 0 took a message (credit) between its report and the probe, and said so during the wave.
    d.reported(0, status({ sent: 1, received: 1 }));
    d.probed(0, 1, status({ sent: 1, received: 1 }));
    d.probed(1, 1, status({ sent: 1, received: 1 }));
    expect(actions).toEqual([]);
    expect(probes).toEqual([1, 2]);
    d.probed(0, 2, status({ sent: 1, received: 1 }));
    d.probed(1, 2, status({ sent: 1, received: 1 }));
    expect(actions).toEqual(['stalled']);
  });

  it('keeps the report a thread sent after its busy answer, and asks again from it', () => {
    // Thread 0 reported before the last message thread 1 sent it: the reports look quiet with
    // nothing in flight. It answers the probe while it runs (at a yield of its loop), then runs
    // out of work and reports, before thread 1's answer ends the wave. The report is its latest
    // word: kept, the job is seen quiet; replaced by the busy answer, no thread ever reported
    // again and the run waited forever with every thread asleep.
    const { d, probes, actions } = detector(2);
    d.reported(0, status({ sent: 1, received: 1, awaitingLoop: 1 }));
    d.reported(1, status({ sent: 2, received: 2, awaitingLoop: 1 }));
    expect(probes).toEqual([1]);
    d.probed(0, 1, status({ quiet: false, sent: 2, received: 2, awaitingLoop: 1 }));
    d.reported(0, status({ sent: 2, received: 2, awaitingLoop: 1 }));
    d.probed(1, 1, status({ sent: 2, received: 2, awaitingLoop: 1 }));
    expect(actions).toEqual([]);
    expect(probes).toEqual([1, 2]);
    d.probed(0, 2, status({ sent: 2, received: 2, awaitingLoop: 1 }));
    d.probed(1, 2, status({ sent: 2, received: 2, awaitingLoop: 1 }));
    expect(actions).toEqual(['tellLoopsEnded']);
  });

  it('keeps the report a thread sent after its quiet answer, when another moved', () => {
    // Thread 0 answers quiet; then a message thread 1 sent (it took a checkpoint's trigger)
    // reaches it, and it reports what it received, before thread 1's busy answer ends the wave.
    // Its old answer in place of that report, the counts never balanced again.
    const { d, probes, actions } = detector(2);
    d.reported(0, status({ sent: 1, received: 1, awaitingLoop: 1 }));
    d.reported(1, status({ sent: 1, received: 1, awaitingLoop: 1 }));
    expect(probes).toEqual([1]);
    d.probed(0, 1, status({ sent: 1, received: 1, awaitingLoop: 1 }));
    d.reported(0, status({ sent: 1, received: 2, awaitingLoop: 1 }));
    d.probed(1, 1, status({ quiet: false, sent: 2, received: 1, awaitingLoop: 1 }));
    d.reported(1, status({ sent: 2, received: 1, awaitingLoop: 1 }));
    expect(probes).toEqual([1, 2]);
    d.probed(0, 2, status({ sent: 1, received: 2, awaitingLoop: 1 }));
    d.probed(1, 2, status({ sent: 2, received: 1, awaitingLoop: 1 }));
    expect(actions).toEqual(['tellLoopsEnded']);
  });

  it('does nothing when the threads were sent work during the second wave, and asks again', () => {
    // A checkpoint's trigger is no message between threads: a thread that answered before it
    // took the trigger snapshots afterwards, and its barriers go round a loop whose heads the
    // action would close (the loop checkpoint then never completed, and the job hung).
    const { d, probes, actions } = detector(2);
    d.reported(0, status({ sent: 1, received: 1, drainingLoop: 1 }));
    d.reported(1, status({ sent: 1, received: 1, drainingLoop: 1 }));
    expect(probes).toEqual([1]);
    d.probed(0, 1, status({ sent: 1, received: 1, drainingLoop: 1 }));
    d.mailed();
    d.probed(1, 1, status({ sent: 1, received: 1, drainingLoop: 1 }));
    expect(actions).toEqual([]);
    expect(probes).toEqual([1, 2]);
    d.probed(0, 2, status({ sent: 1, received: 1, drainingLoop: 1 }));
    d.probed(1, 2, status({ sent: 1, received: 1, drainingLoop: 1 }));
    expect(actions).toEqual(['closeLoops']);
  });

  it('ignores a busy answer and answers of an old round', () => {
    const { d, actions } = detector(1);
    d.reported(0, status());
    d.probed(0, 7, status());
    expect(actions).toEqual([]);
    d.probed(0, 1, status({ quiet: false }));
    expect(actions).toEqual([]);
  });

  it.each([
    [{ drainingLoop: 1, awaitingLoop: 1 }, 'closeLoops'],
    [{ awaitingLoop: 2 }, 'tellLoopsEnded'],
    [{ waitsOnNothing: true, drainingLoop: 1 }, 'neverSettles'],
    [{ unfinished: 0 }, 'none'],
    [{}, 'stalled'],
  ] as const)('at a quiet moment with %o: %s', (over, action) => {
    const { d, actions } = detector(1);
    d.reported(0, status(over));
    d.probed(0, 1, status(over));
    expect(actions).toEqual([action]);
  });
});
