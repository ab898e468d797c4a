// A step as text: the Debugger panel shows exactly what these return, so showing the same
// StepView twice (after a step back) shows the same words. Event times read as the Metrics
// panel writes them ("watermark 12:00:05", "event-time timer 12:00:10 fires for key o7").
import type { StateAccess, StepView, WatermarkPassView } from '../../engine/protocol/protocol.js';
import { formatEventTime, timerLine } from './eventTime';

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
  watermark: 'watermark',
  idle: 'input went idle',
  timer: 'timer fires',
};

/** A key as the user wrote it in a breakpoint: a string as it is, anything else as JSON. */
export function keyText(key: unknown): string {
  return typeof key === 'string' ? key : inlineValue(key, 60);
}

export function stepKindText(
  step: Pick<StepView, 'kind' | 'checkpointId' | 'watermark' | 'timer' | 'key'>,
  now?: number,
): string {
  const text = KIND_TEXT[step.kind];
  switch (step.kind) {
    case 'barrier':
      return step.checkpointId === undefined ? text : `${text} of checkpoint ${step.checkpointId}`;
    case 'watermark':
      return step.watermark === undefined ? text : `${text} ${formatEventTime(step.watermark, now)}`;
    case 'timer': {
      if (step.timer === undefined) return text;
      const timer = timerLine(step.timer.domain, step.timer.timestamp, now);
      return step.key === undefined ? `${timer} fires` : `${timer} fires for key ${keyText(step.key)}`;
    }
    default:
      return text;
  }
}

/** A watermark or idle step: the subtask's own watermark after it (the least of its inputs'). */
export function operatorWatermarkText(step: Pick<StepView, 'operatorWatermark'>, now?: number): string {
  return step.operatorWatermark === undefined
    ? 'none yet (an input has had no watermark)'
    : formatEventTime(step.operatorWatermark, now);
}

/**
 * A watermark that fired nothing, shown with the step after it: "timeouts#0: watermark
 * 12:00:05 over edge e1 from upstream subtask 0; the subtask's watermark 12:00:05".
 */
export function watermarkPassText(pass: WatermarkPassView, now?: number): string {
  const feedback = pass.edge.feedback ? ' (feedback)' : '';
  return `${subtaskName(pass.operator, pass.subtask)}: watermark ${formatEventTime(pass.watermark, now)} over edge ${pass.edge.id}${feedback} from upstream subtask ${pass.edge.fromSubtask}; the subtask's watermark ${operatorWatermarkText(pass, now)}`;
}

/** "owners#2": an operator's subtask, as the canvas badge and the engine's messages name it. */
export function subtaskName(operator: string, subtask: number): string {
  return `${operator}#${subtask}`;
}

/** "Step 12: owners#2, record delivered". */
export function stepHeading(step: StepView, now?: number): string {
  return `Step ${step.seq}: ${subtaskName(step.operator, step.subtask)}, ${stepKindText(step, now)}`;
}

/** Where the delivered record (or watermark, or mark) came from, or what fired the timer. */
export function stepOrigin(step: StepView): string {
  if (step.edge === undefined) {
    if (step.kind === 'produce') return `read by source ${subtaskName(step.operator, step.subtask)}`;
    if (step.kind === 'timer') {
      return step.timer?.domain === 'processingTime'
        ? 'the clock passed the timer (or the input ended)'
        : "the subtask's watermark passed the timer (or the input ended)";
    }
    return '—';
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
