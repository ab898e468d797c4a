// The host's side of the inspector's "Test connection": the operator's params as the designer has
// them, `${env:NAME}` resolved here (in the host's environment, as a run resolves them), handed to
// the kind's factory's testConnection. Whatever happens (a missing variable, a factory that
// throws or never answers) the designer gets one line back, never an error or a stack trace.

import { resolveEnvParams } from '../operators/envParams.js';
import { findFactory } from '../operators/kindFactories.js';
import type { ConnectionCheck } from '../operators/kindFactory.js';
import type { ConnectionTestRequest, ConnectionTestResult } from '../protocol/protocol.js';

/** How long a test may take before the designer is told the server did not answer. */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;

export const NO_CONNECTION_TEST = 'this kind has no connection test';

/** The first line of what was thrown: a message for people, never a stack. */
function lineOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.trim() || 'the connection test failed without saying why';
}

/** The check, or a failure when it has not answered within `ms`. */
function withinTime(
  check: Promise<ConnectionCheck>,
  operatorId: string,
  ms: number,
): Promise<ConnectionCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ConnectionCheck>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ok: false,
          message: `operator "${operatorId}": no answer within ${ms / 1000} s (is the server running and reachable?)`,
        }),
      ms,
    );
  });
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

export async function testConnection(
  request: ConnectionTestRequest,
  timeoutMs = CONNECTION_TEST_TIMEOUT_MS,
): Promise<ConnectionTestResult> {
  const factory = findFactory(request.kind);
  if (factory?.testConnection === undefined) return { outcome: 'none', message: NO_CONNECTION_TEST };
  const test = factory.testConnection.bind(factory);
  try {
    const params = resolveEnvParams(request.params, request.operatorId);
    const check = await withinTime(
      // A factory that throws synchronously is caught by the same catch as one that rejects.
      Promise.resolve().then(() => test(params, request.operatorId)),
      request.operatorId,
      timeoutMs,
    );
    const message = typeof check?.message === 'string' ? lineOf(new Error(check.message)) : '';
    return { outcome: check?.ok === true ? 'ok' : 'failed', message: message || 'no message' };
  } catch (error) {
    return { outcome: 'failed', message: lineOf(error) };
  }
}
