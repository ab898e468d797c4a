// A step as text: the Debugger panel shows exactly what these return, so showing the same
// StepView twice (after a step back) shows the same words.
import type { StateAccess, StepView } from '../../engine/protocol/protocol.js';

/** Pretty JSON; strings quoted so that "7" and 7 read apart; `undefined` named. */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One line of JSON, cut to `max` characters with an ellipsis. */
export function inlineValue(value: unknown, max = 120): string {
  let text: string;
  if (value === undefined) text = 'undefined';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const KIND_TEXT: Readonly<Record<StepView['kind'], string>> = {
  record: 'record delivered',
  produce: 'record produced by the source',
  barrier: 'checkpoint barrier',
  end: 'end of input',
};

export function stepKindText(step: Pick<StepView, 'kind' | 'checkpointId'>): string {
  const text = KIND_TEXT[step.kind];
  return step.kind === 'barrier' && step.checkpointId !== undefined
    ? `${text} of checkpoint ${step.checkpointId}`
    : text;
}

/** "owners#2": an operator's subtask, as the canvas badge and the engine's messages name it. */
export function subtaskName(operator: string, subtask: number): string {
  return `${operator}#${subtask}`;
}

/** "Step 12: owners#2, record delivered". */
export function stepHeading(step: StepView): string {
  return `Step ${step.seq}: ${subtaskName(step.operator, step.subtask)}, ${stepKindText(step)}`;
}

/** Where the delivered record came from. */
export function stepOrigin(step: StepView): string {
  if (step.edge === undefined) {
    return step.kind === 'produce' ? `read by source ${subtaskName(step.operator, step.subtask)}` : '—';
  }
  const feedback = step.edge.feedback ? ' (feedback)' : '';
  return `edge ${step.edge.id}${feedback} from upstream subtask ${step.edge.fromSubtask}`;
}

export interface AccessRow {
  readonly state: string;
  readonly type: StateAccess['type'];
  readonly op: StateAccess['op'];
  readonly key: string;
  readonly element: string;
  /** "before → after" for a change, the value for a read. */
  readonly change: string;
}

export function accessRow(access: StateAccess): AccessRow {
  const before = 'before' in access ? inlineValue(access.before) : '—';
  const after = 'after' in access ? inlineValue(access.after) : '—';
  const change =
    access.op === 'read'
      ? before === '—'
        ? after
        : before
      : access.op === 'delete' || access.op === 'clear'
        ? `${before} → (deleted)`
        : `${before} → ${after}`;
  return {
    state: access.state,
    type: access.type,
    op: access.op,
    key: inlineValue(access.key),
    element: access.element === undefined ? '—' : inlineValue(access.element),
    change,
  };
}
