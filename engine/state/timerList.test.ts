// The list against an array doing the same operations: same items, same order, every time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimerList } from './timerList.js';

type Op = { op: 'push' | 'shift' | 'pop' } | { op: 'insert'; at: number } | { op: 'removeAt'; at: number };

const ops = fc.array(
  fc.oneof(
    fc.constantFrom<Op>({ op: 'push' }, { op: 'shift' }, { op: 'pop' }),
    fc.record({ op: fc.constant('insert' as const), at: fc.nat(1000) }),
    fc.record({ op: fc.constant('removeAt' as const), at: fc.nat(1000) }),
  ),
  { maxLength: 400 },
);

describe('a timer list', () => {
  it('holds what an array would, times included, after any pushes, insertions, removals, shifts and pops', () => {
    fc.assert(
      fc.property(fc.nat(40), ops, (start, steps) => {
        const model = Array.from({ length: start }, (_, i) => ({ timestamp: -i, keyText: `k${-i}` }));
        const list = new TimerList(model);
        let next = 0;
        for (const step of steps) {
          switch (step.op) {
            case 'push':
              model.push({ timestamp: ++next, keyText: `k${next}` });
              list.push(model[model.length - 1]!);
              break;
            case 'shift':
              expect(list.shift()).toBe(model.shift());
              break;
            case 'pop':
              expect(list.pop()).toBe(model.pop());
              break;
            case 'insert': {
              const at = step.at % (model.length + 1);
              const item = { timestamp: ++next, keyText: `k${next}` };
              model.splice(at, 0, item);
              list.insert(at, item);
              break;
            }
            case 'removeAt':
              if (model.length === 0) break;
              expect(list.removeAt(step.at % model.length)).toBe(model.splice(step.at % model.length, 1)[0]);
              break;
          }
          expect(list.length).toBe(model.length);
          expect(list.last()).toBe(model[model.length - 1]);
          for (let i = 0; i < model.length; i++) {
            expect(list.timeAt(i)).toBe(model[i]!.timestamp);
            expect(list.keyAt(i)).toBe(model[i]!.keyText);
          }
        }
        expect(list.toArray()).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
