// What the main thread of a run on several threads uses as if it were local but lives on one
// of the threads: a sink's committer (it shares its target with the sink's writers, so it runs
// beside them) and the state browser's reads of a subtask's store (only its thread has it open).
// Each call is a message to that thread and its answer.
import type { ConnectorState } from '../runtime/connectorState.js';
import type { SinkCommitter } from '../runtime/sink.js';
import type { StoreBrowser } from '../state/storeBrowser.js';
import type { PartThread } from './partThread.js';
import type { BrowseRequest } from './partWorkerProtocol.js';

/** The coordinator's view of a sink's committer. A restore's recovery happens on its thread. */
export function committerOn(part: PartThread, operatorId: string): SinkCommitter {
  return {
    prepare: (checkpointId, committables) =>
      part.call<ConnectorState | undefined>({ method: 'prepare', operatorId, checkpointId, committables }),
    commit: (commit) => part.call<void>({ method: 'commit', operatorId, commit }),
    commitRemaining: () => Promise.reject(new Error('internal: a sink commits its rest on its own thread')),
    recover: () => Promise.reject(new Error('internal: a sink recovers on its own thread')),
  };
}

/** The state browser's reads of one subtask's store, while the run has it open. */
export function browserOn(part: PartThread, operatorId: string, subtask: number): StoreBrowser {
  const read = <T>(request: BrowseRequest) =>
    part.call<T>({ method: 'browse', operatorId, subtask, read: request }).catch((error: Error) => {
      throw new Error(`the state of operator "${operatorId}" subtask ${subtask}: ${error.message}`);
    });
  return {
    keys: (range, limit) => read({ method: 'keys', range, limit }),
    entries: (range, limit) => read({ method: 'entries', range, limit }),
    values: (keys) => read({ method: 'values', keys }),
  };
}
