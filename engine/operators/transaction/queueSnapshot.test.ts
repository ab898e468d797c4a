import { describe, expect, it } from 'vitest';
import { envelope } from '../../runtime/envelope.js';
import { queueSnapshot, restoredQueue } from './queueSnapshot.js';
import { OrderedInput, type QueuedRecord, recordId } from './txOrder.js';

const rec = (value: unknown) => envelope(value, undefined, -1, undefined, undefined, 0);

/** A checkpoint of `input` as its operator would save it, restored into `channels` channels. */
function restoreInto(inputs: readonly OrderedInput[], channels: number): OrderedInput {
  const restored = restoredQueue(
    inputs.map((input) =>
      queueSnapshot(
        input.clocks.map((c) => c.state()),
        input.queued(),
      ),
    ),
    channels,
  )!;
  const input = new OrderedInput(channels);
  input.restore(restored.records, restored.clocks);
  return input;
}

function takeAll(input: OrderedInput): QueuedRecord[] {
  const out: QueuedRecord[] = [];
  for (let next = input.peek(); next !== undefined; next = input.peek()) {
    input.take(next);
    out.push(next);
  }
  return out;
}

describe('a restore into another layout of the input channels (an upstream rescaled)', () => {
  it("names carried records apart from the new channels' records, which count from 0 again", () => {
    const before = new OrderedInput(2);
    // Channel 0's first records came; channel 1's has not: none is runnable, all are saved.
    before.add(0, rec('old a0'));
    before.add(0, rec('old a1'));
    const after = restoreInto([before], 1);
    after.add(0, rec('new a0'));
    after.add(0, rec('new a1'));
    const all = takeAll(after);
    expect(all.map((r) => r.envelope.value)).toEqual(['old a0', 'old a1', 'new a0', 'new a1']);
    // In flight together (waiting for rows), each must be named alone.
    const ids = all.map(recordId);
    expect(new Set(ids).size, `ids ${ids.join(', ')}`).toBe(all.length);
  });

  it('keeps carried records first and named alike through a checkpoint taken before they ran', () => {
    const before = new OrderedInput(2);
    before.add(0, rec('old a0'));
    before.add(0, rec('old a1'));
    const once = restoreInto([before], 1);
    once.add(0, rec('new a0'));
    // Checkpointed by two subtasks that both held the carried records: each is restored once.
    const twice = restoreInto([once, once], 1);
    twice.add(0, rec('new a1'));
    const all = takeAll(twice);
    expect(all.map((r) => r.envelope.value)).toEqual(['old a0', 'old a1', 'new a0', 'new a1']);
    expect(all.map(recordId).slice(0, 2)).toEqual(takeAll(restoreInto([before], 1)).map(recordId));
    expect(new Set(all.map(recordId)).size).toBe(all.length);
  });
});
