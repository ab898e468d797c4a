// Where Run on Flink… sends a job: the cluster's REST address the user last gave (kept in
// localStorage, as the desktop shell keeps it across a restart) and an optional parallelism.
import { isAbsoluteOrUri } from '../../engine/graph/index.js';
import type { FlinkTarget } from '../../engine/protocol/protocol.js';

const STORAGE_KEY = 'pipewright.flinkCluster';
/** `npm run services` starts one here; a session cluster's REST port is 8081 by default. */
export const DEFAULT_CLUSTER = 'http://127.0.0.1:8081';

/** The part of Web Storage used here: localStorage, or a stand-in in tests. */
export interface TargetStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function pageStorage(): TargetStorage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function readCluster(storage: TargetStorage | undefined = pageStorage()): string {
  try {
    return storage?.getItem(STORAGE_KEY) || DEFAULT_CLUSTER;
  } catch {
    return DEFAULT_CLUSTER;
  }
}

export function writeCluster(cluster: string, storage: TargetStorage | undefined = pageStorage()): void {
  try {
    storage?.setItem(STORAGE_KEY, cluster);
  } catch {
    // Storage refused (a private window): the address holds until the page is left.
  }
}

/**
 * The dialog's fields as a target, or what is wrong with them (said beside the field): an
 * http(s) address, a parallelism that is empty (the job's own) or a whole number from 1, and a
 * savepoint to go on from that is empty (from the start), an absolute path or a URI.
 */
export function parseTarget(
  cluster: string,
  parallelism: string,
  savepoint = '',
): FlinkTarget | { readonly problem: string } {
  const address = cluster.trim();
  let url: URL | undefined;
  try {
    url = new URL(address);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return { problem: 'The cluster’s REST address, such as http://127.0.0.1:8081' };
  }
  const from = savepoint.trim();
  if (from !== '' && !isAbsoluteOrUri(from)) {
    return { problem: 'The savepoint’s absolute path or URI, as a stop names it, or empty to start anew' };
  }
  const fromSavepoint = from === '' ? {} : { fromSavepoint: from };
  const p = parallelism.trim();
  if (p === '') return { cluster: address, ...fromSavepoint };
  const n = Number(p);
  if (!Number.isInteger(n) || n < 1 || n > 32768) {
    return { problem: 'Parallelism is a whole number from 1 to 32768, or empty for the job’s own' };
  }
  return { cluster: address, parallelism: n, ...fromSavepoint };
}
