// An operator's keys and entries per subtask, as the engine counts them by reading each
// subtask's store (a state page asked with `sizes`): its distinct keys, and per state the keys
// that hold it, its entries and bytes. The running metrics count a key once per state it holds;
// this counts it once. Reading every key costs what the state holds, so while a run goes the
// count is taken again every 5 s of it, or ten times as long as the last count took if that is
// longer; at each debugger step; and once more when the run ends. One count at a time: a reason
// to count that comes while one is under way is taken when it ends.
import { useEffect, useRef, useState } from 'react';
import type { StateSizeView } from '../../engine/protocol/protocol.js';
import { useRun, useRunController } from './runContext';
import { isActive } from './runControls';

const COUNT_EVERY_MS = 5000;
/** A count may take at most a tenth of the run's time. */
const COST_SHARE = 10;

export interface SubtaskCounts {
  readonly subtask: number;
  /** Distinct keys holding state. */
  readonly keys: number;
  readonly states: readonly StateSizeView[];
}

export interface StateCounts {
  /** By subtask, in the order asked; undefined until the first count is in. */
  readonly counts: readonly SubtaskCounts[] | undefined;
  readonly error: string | undefined;
}

export function useStateCounts(operator: string, subtasks: readonly number[]): StateCounts {
  const controller = useRunController();
  const runId = useRun((s) => s.runId);
  const [every, setEvery] = useState(COUNT_EVERY_MS);
  const liveTick = useRun((s) =>
    isActive(s.status) ? Math.floor((s.metrics?.elapsedMs ?? 0) / every) : s.status,
  );
  const step = useRun((s) => s.step);
  const [counts, setCounts] = useState<readonly SubtaskCounts[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const busy = useRef(false);
  const again = useRef(false);
  /** What is counted now, and how to count it: a count that ends for something else is dropped. */
  const current = useRef('');
  const countNow = useRef<() => void>(() => {});
  const subtaskList = subtasks.join(',');

  // biome-ignore lint/correctness/useExhaustiveDependencies: liveTick and step are reasons to count again
  useEffect(() => {
    if (runId === undefined) return;
    const what = `${runId}\0${operator}\0${subtaskList}`;
    current.current = what;
    const list = subtaskList === '' ? [] : subtaskList.split(',').map(Number);
    countNow.current = () => {
      busy.current = true;
      again.current = false;
      const started = performance.now();
      Promise.all(
        list.map((subtask) =>
          controller
            .statePage({ operator, subtask, limit: 1, sizes: true })
            .then((page) => ({ subtask, keys: page.keys ?? 0, states: page.states ?? [] })),
        ),
      )
        .then(
          (result) => {
            if (current.current !== what) return;
            setCounts(result);
            setError(undefined);
            setEvery(Math.max(COUNT_EVERY_MS, COST_SHARE * (performance.now() - started)));
          },
          (e: unknown) => {
            if (current.current !== what) return;
            setError(e instanceof Error ? e.message : String(e));
          },
        )
        .finally(() => {
          busy.current = false;
          if (again.current) countNow.current();
        });
    };
    if (busy.current) again.current = true;
    else countNow.current();
  }, [controller, runId, operator, subtaskList, liveTick, step]);

  // Another run or operator: what was counted is not about it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the reasons to forget the count
  useEffect(() => {
    setCounts(undefined);
    setError(undefined);
  }, [runId, operator]);

  return { counts, error };
}
