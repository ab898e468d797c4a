// What the inspector's "Test connection" shows under its button: nothing yet, that it is asking,
// or the host's one-line answer. An answer is about the params it was asked with: once they are
// edited it no longer says anything about the form as it is, so it is no longer shown.
import type { ConnectionTestResult } from '../../engine/protocol/protocol.js';

export type ConnectionTestState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'testing'; readonly asked: string }
  | { readonly phase: 'answered'; readonly asked: string; readonly result: ConnectionTestResult };

export interface ConnectionTestNote {
  readonly tone: ConnectionTestResult['outcome'] | 'testing';
  readonly text: string;
}

/** What a test is asked about, as one comparable string. */
export function askedKey(operatorId: string, kind: string, params: unknown): string {
  return JSON.stringify([operatorId, kind, params ?? {}]);
}

/** The state once the host answered `asked`; a later question (or none) keeps its own state. */
export function answered(
  state: ConnectionTestState,
  asked: string,
  result: ConnectionTestResult,
): ConnectionTestState {
  return state.phase === 'testing' && state.asked === asked ? { phase: 'answered', asked, result } : state;
}

/** A request the host could not answer at all (it disconnected) is a failed test saying why. */
export function failedRequest(error: unknown): ConnectionTestResult {
  return { outcome: 'failed', message: error instanceof Error ? error.message : String(error) };
}

export function connectionTestNote(state: ConnectionTestState, now: string): ConnectionTestNote | undefined {
  if (state.phase === 'idle' || state.asked !== now) return undefined;
  if (state.phase === 'testing') return { tone: 'testing', text: 'Testing the connection…' };
  return { tone: state.result.outcome, text: state.result.message };
}
