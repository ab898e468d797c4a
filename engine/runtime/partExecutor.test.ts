// A thread's part of a run on several threads (partExecutor.ts), on a subtask of the test's own:
// the designer's Pause must hold the thread wherever the pause finds it, including in the turn it
// gives its event loop between slices, when the thread then finds nothing to run.
import { describe, expect, it } from 'vitest';
import { PartExecutor } from './partExecutor.js';
import type { Subtask } from './subtask.js';
import { SubtaskLoad } from './subtaskLoad.js';

/**
 * A source with one slice that keeps its thread busy past the executor's yield interval (10 ms),
 * so that the executor gives its event loop a turn right after it; then it has nothing to run.
 */
function oneBusySlice(): Subtask {
  let ran = false;
  const subtask = {
    operator: { id: 'src' },
    subtask: 0,
    label: 'src#0',
    inputs: [],
    emitter: { allChannels: [], canSend: () => true },
    mailbox: { onMail: undefined, size: 0 },
    phase: 'running',
    idleFromStart: false,
    isSource: true,
    waiting: false,
    load: new SubtaskLoad(),
    recordsIn: 0,
    runnable: () => !ran,
    hasWork: () => !ran,
    dueAt: () => undefined,
    runSlice: () => {
      ran = true;
      const until = performance.now() + 20;
      while (performance.now() < until) {
        // The slice's work.
      }
      return undefined;
    },
  };
  return subtask as unknown as Subtask;
}

describe('a thread of a run on several threads', () => {
  it('holds at a pause that comes in its turn to the event loop, though it then has nothing to run', async () => {
    const executor = new PartExecutor([oneBusySlice()], [], { idle: () => {}, finished: () => {} });
    // run() goes on synchronously through the slice, up to the turn it gives the event loop.
    const running = executor.run();
    let held = false;
    const pause = executor.pause().then(() => {
      held = true;
    });
    await Promise.race([pause, new Promise((resolve) => setTimeout(resolve, 2000))]);
    expect(held).toBe(true);
    executor.halt();
    await running;
  });
});
