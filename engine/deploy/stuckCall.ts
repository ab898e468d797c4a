// A call into an operator that another thread found in progress, said in the user's terms: the
// operator, its subtask, the record it was given (file:line for a file source), and whether the
// code is still running or waits on a promise it returned.

import type { MarkedCall } from '../runtime/callMarker.js';
import { describeRecordSource } from '../runtime/recordSource.js';

/** A call that has run this long without returning, while its run is being stopped, is stuck. */
export const STUCK_AFTER_MS = 1000;
/** A call this long is shown to the user (the CLI's stderr, the designer's run status). */
export const NOTICE_AFTER_MS = 2000;

/** `operator "p1" (subtask 1 of 2)`, as the engine's own failures name a subtask. */
function operatorOf(call: MarkedCall): string {
  const s = call.subtask;
  if (s === undefined) return 'an operator';
  return `operator "${s.operatorId}"${s.parallelism > 1 ? ` (subtask ${s.subtask} of ${s.parallelism})` : ''}`;
}

/** `the record from events.jsonl:17`. */
function recordOf(call: MarkedCall): string {
  const source = call.source;
  if (source === undefined) return 'a record';
  try {
    return `the record from ${describeRecordSource(source, call.position)}`;
  } catch {
    // The input file went away under the run: its name still says which input it was.
    return source.kind === 'file' ? `a record of ${source.file}` : 'a record';
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** ` on the record from x:3`, ` producing records` or ` at the end of its input`. */
function taskOf(call: MarkedCall): string {
  if (call.kind === 'produce') return ' producing records';
  if (call.kind === 'endInput') return ' at the end of its input';
  if (call.kind === 'onTimer') return ' in onTimer';
  return ` on ${recordOf(call)}`;
}

/** What the call is doing: `operator "p1" has run its code on the record from x:3 for 4.2 s without returning`. */
export function describeCall(call: MarkedCall, forMs: number): string {
  if (call.kind === 'condition') {
    return `the condition of breakpoint "${call.breakpoint}" has run on ${recordOf(call)} at ${operatorOf(call)} for ${seconds(forMs)} without returning`;
  }
  return call.awaiting
    ? `${operatorOf(call)} has waited ${seconds(forMs)} on a promise its code returned${taskOf(call)}`
    : `${operatorOf(call)} has run its code${taskOf(call)} for ${seconds(forMs)} without returning`;
}

/** The failure of a run whose stop had to end a call that did not return. */
export function stuckStopMessage(call: MarkedCall, forMs: number): string {
  return `stopped by force: ${describeCall(call, forMs)}`;
}

/** The failure of a run one of whose calls ran past `settings.callTimeoutMs`. */
export function overTimeLimitMessage(call: MarkedCall, forMs: number, limitMs: number): string {
  return `${describeCall(call, forMs)}: over the job's call time limit (settings.callTimeoutMs ${limitMs})`;
}

/** The failure of a run whose thread ended with a call's promise still pending: nothing could settle it. */
export function neverSettledMessage(call: MarkedCall): string {
  return `${operatorOf(call)} failed${taskOf(call)}: its code returned a promise that never settled (nothing was left that could settle it: an async function must await only what resolves)`;
}

/** The failure of a run whose thread died (out of memory, a native crash). */
export function threadDiedMessage(why: string, call: MarkedCall | undefined): string {
  const where = call === undefined ? '' : ` while ${operatorOf(call)} ran its code${taskOf(call)}`;
  return `the run's thread died (${why})${where}`;
}

/**
 * The failure of a run on several threads one of whose threads died: the operator and subtask
 * in a call then, or else every subtask the thread ran.
 */
export function partDiedMessage(
  why: string,
  call: MarkedCall | undefined,
  ran: readonly { readonly operatorId: string; readonly subtask: number; readonly parallelism: number }[],
): string {
  if (call !== undefined) return threadDiedMessage(why, call);
  const names = ran.map((s) =>
    operatorOf({ subtask: s, kind: 'process', awaiting: false, source: undefined, position: 0 }),
  );
  return `the thread running ${names.join(', ')} died (${why})`;
}
