// The host's side of the inspector's "Test connection": the operator's params as the designer has
// them, handed to the kind's test (registry.ts resolves `${env:NAME}` in the host's environment, as
// a run does, only for a job the user trusts, and turns a throw into a failure). Here: a kind without a test is said to be one, a
// test that does not answer in time is given up on, and the designer always gets one line back.
import { findFactory, loadFactories } from '../operators/kindFactories.js';
import type { ConnectionCheck } from '../operators/kindFactory.js';
import { testConnection as testKindConnection } from '../operators/registry.js';
import type { ConnectionTestRequest, ConnectionTestResult } from '../protocol/protocol.js';

/** How long a test may take before the designer is told the server did not answer. */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;

export const NO_CONNECTION_TEST = 'this kind has no connection test';

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

/** A factory's message as one line; a factory that gave none still says which way it went. */
function oneLine(check: ConnectionCheck): string {
  const first = typeof check.message === 'string' ? check.message.split('\n', 1)[0]?.trim() : '';
  return first || (check.ok ? 'the connection test passed' : 'the connection test failed without saying why');
}

export async function testConnection(
  request: ConnectionTestRequest,
  timeoutMs = CONNECTION_TEST_TIMEOUT_MS,
): Promise<ConnectionTestResult> {
  await loadFactories([request.kind]);
  if (findFactory(request.kind)?.testConnection === undefined)
    return { outcome: 'none', message: NO_CONNECTION_TEST };
  const check = await withinTime(
    testKindConnection(request.kind, request.params, request.operatorId, request.trusted !== true),
    request.operatorId,
    timeoutMs,
  );
  return { outcome: check.ok === true ? 'ok' : 'failed', message: oneLine(check) };
}
