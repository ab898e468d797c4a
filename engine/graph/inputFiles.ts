// The files a job reads, as its operators name them: what the host checks are there before a run
// (job.checkFiles) and what goes with a template saved elsewhere. The params that name them are
// the kinds' own (KindDescriptor.fileParams, "read"); a file a sink writes is not one: the run
// makes it, and its folder. Read from the job's JSON as it is, valid or not, so that the designer
// can ask while the job is still being drawn. Pure: the designer computes the list and sends it,
// never the job's whole text.
import { findKind } from './kinds/kindRegistry.js';

/** One file a job reads: the operator and parameter that name it, and the name as written. */
export interface InputFileRef {
  readonly operator: string;
  /** The operator's index in the job's `operators`. */
  readonly index: number;
  readonly param: string;
  /** As the job writes it: relative names resolve against the job file's folder. */
  readonly file: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The input files a job's JSON names, wherever the rest of it is valid or not. */
export function inputFilesOf(job: unknown): InputFileRef[] {
  if (!isObject(job) || !Array.isArray(job.operators)) return [];
  const found: InputFileRef[] = [];
  job.operators.forEach((op: unknown, index) => {
    if (!isObject(op) || typeof op.id !== 'string' || typeof op.kind !== 'string') return;
    const params = op.params;
    if (!isObject(params)) return;
    for (const [param, access] of Object.entries(findKind(op.kind)?.fileParams ?? {})) {
      const file = params[param];
      if (access === 'read' && typeof file === 'string' && file !== '')
        found.push({ operator: op.id, index, param, file });
    }
  });
  return found;
}
