// A failed run as the Problems panel and the canvas show it: the host's message in full and the
// operator it names. The host's run status carries no operator id, so it is read from the
// message, where the engine names an operator as `operator "p1"`; only a message that names
// exactly one operator marks one, so a message about two never marks the wrong one.
import type { RunState } from './runStore';

const OPERATOR_NAMED = /\boperator "([A-Za-z0-9_-]{1,64})"/g;

let lastRead: { message: string; operator: string | undefined } | undefined;

/** The one operator a message names, if it names exactly one. */
export function operatorNamedIn(message: string): string | undefined {
  // Every operator on the canvas asks on every change of the run store: read each message once.
  if (lastRead?.message === message) return lastRead.operator;
  const named = new Set([...message.matchAll(OPERATOR_NAMED)].map((m) => m[1]));
  const operator = named.size === 1 ? [...named][0] : undefined;
  lastRead = { message, operator };
  return operator;
}

/**
 * Why the last run failed, while that still says something about the job: not once the job has
 * changed since (see RunState.outdated), and not while another run is on.
 */
export function failedRunMessage(
  state: Pick<RunState, 'status' | 'message' | 'outdated'>,
): string | undefined {
  if (state.status !== 'failed' || state.outdated) return undefined;
  return state.message ?? 'the engine gave no reason';
}

/** The operator the last run's failure names, for the canvas to mark. */
export function failedOperator(state: Pick<RunState, 'status' | 'message' | 'outdated'>): string | undefined {
  const message = failedRunMessage(state);
  return message === undefined ? undefined : operatorNamedIn(message);
}
