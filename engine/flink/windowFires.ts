// A `window` with a code aggregate, run for the Flink runner (flink/PROTOCOL.md, "Windows"):
// Flink's window operator keeps each window's records and, each time a window fires, sends them
// here as one record, `{key, start, end, records[, times]}`, in the order the window took them.
// This folds them with the user's functions, called as the local window kind calls them
// (operators/windowLogic.ts), and emits the local `{key, start, end, value}`:
//
// - tumbling and sliding: createAccumulator, then add per record in order, then result: what
//   the local engine's accumulator holds when that window fires (a refiring for a late record
//   within the allowed lateness folds the late record last, as locally it is added last);
// - sessions: the records are replayed in arrival order, each record's window [t, t + gap)
//   joining the sessions made so far exactly as the local engine joins it (sessionMerge.ts), so
//   merge is called on the same accumulators in the same order. Sessions of the key outside this
//   one never touched it, so they are not needed.
//
// The user functions are deterministic by contract (the local engine replays them after a
// restore too), so folding at the firing gives the value incremental adding gives.
import { paramsOf } from '../graph/kinds/kindDescriptor.js';
import { windowKind } from '../graph/kinds/window.js';
import type { Operator } from '../graph/schema.js';
import { compileCodeAggregate } from '../operators/window/codeAggregate.js';
import { addSession } from '../operators/window/sessionMerge.js';
import type { TimeWindow } from '../operators/window/timeWindow.js';
import type { WindowAggregate } from '../operators/window/windowAggregate.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';

/** What the window operator sends when a window fires (WindowContents.java). */
interface WindowFire {
  readonly key: unknown;
  readonly start: number;
  readonly end: number;
  readonly records: readonly unknown[];
  /** Sessions only: each record's event time. */
  readonly times?: readonly number[];
}

export class WindowFiresLogic extends BaseLogic {
  /** `gap`: the session gap, undefined for tumbling and sliding windows. */
  constructor(
    env: SubtaskEnvironment,
    private readonly aggregate: WindowAggregate,
    private readonly gap: number | undefined,
  ) {
    super(env);
  }

  override process(envelope: Envelope): void {
    const fire = envelope.value as WindowFire;
    const window = { start: fire.start, end: fire.end };
    const accumulator =
      this.gap === undefined ? this.fold(fire.records) : this.replay(fire, window, this.gap);
    const output = {
      key: fire.key,
      start: fire.start,
      end: fire.end,
      value: this.aggregate.result(accumulator),
    };
    // As the local window's fire: plain data needs no copy, anything else is copied or refused.
    const plain = isPrimitive(output.key) && (output.value === null || Number.isFinite(output.value));
    this.env.emitter.emit(
      plain ? output : recordCopy(output, () => `the result of window [${window.start}, ${window.end})`),
    );
  }

  private fold(records: readonly unknown[]): unknown {
    let accumulator = this.aggregate.createAccumulator();
    for (const record of records) accumulator = this.aggregate.add(accumulator, record);
    return accumulator;
  }

  /** The session's accumulator as the local engine built it, merges included. */
  private replay(fire: WindowFire, fired: TimeWindow, gap: number): unknown {
    const times = fire.times ?? [];
    let sessions: readonly TimeWindow[] = [];
    const accumulators = new Map<number, unknown>();
    fire.records.forEach((record, i) => {
      const time = Math.floor(times[i]!);
      const added = addSession(sessions, { start: time, end: time + gap });
      let accumulator: unknown;
      for (const old of added.absorbed) {
        const held = accumulators.get(old.start);
        accumulators.delete(old.start);
        accumulator = accumulator === undefined ? held : this.aggregate.merge(accumulator, held);
      }
      accumulator = this.aggregate.add(accumulator ?? this.aggregate.createAccumulator(), record);
      accumulators.set(added.window.start, accumulator);
      sessions = added.sessions;
    });
    const [only] = sessions;
    if (sessions.length !== 1 || only!.start !== fired.start || only!.end !== fired.end) {
      throw new Error(
        `internal: the records of session [${fired.start}, ${fired.end}) make ${sessions.map((s) => `[${s.start}, ${s.end})`).join(' ')}`,
      );
    }
    return accumulators.get(only!.start);
  }

  /** Nothing of its own between two records. */
  progress(): undefined {
    return undefined;
  }

  restoreProgress(): void {}
}

/** The window operator's fold in a worker: its code compiled as the local engine compiles it. */
export function windowFiresLogic(env: SubtaskEnvironment, operator: Operator): WindowFiresLogic {
  const params = paramsOf(windowKind, operator);
  if (params.aggregate !== 'code') {
    throw new Error(`operator "${operator.id}": a built-in window aggregate runs in Flink, not in a worker`);
  }
  const aggregate = compileCodeAggregate({
    code: params.code ?? '',
    operatorId: operator.id,
    windowType: params.type,
  });
  return new WindowFiresLogic(env, aggregate, params.type === 'session' ? params.gapMs : undefined);
}

/** A string, a finite number or a boolean: a key no other record holds a reference to. */
function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);
}
