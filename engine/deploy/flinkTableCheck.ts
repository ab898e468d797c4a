// Before a job goes to Flink, each sink.postgres's table is checked by the local sink's own code
// (its testConnection: the server answers, the table exists, upsert's key columns have a unique
// index, append's server allows prepared transactions), so a wrong table is the local one-line
// message at once, not a job that fails on the cluster after its upload. The runner's writers
// check the table again when they open (it may change meanwhile), with the same lines.
import { JobError } from '../graph/jobError.js';
import type { Job } from '../graph/schema.js';
import { findFactory, loadFactories } from '../operators/kindFactories.js';

/** The kinds whose tables are checked before submitting. */
const CHECKED_KINDS: ReadonlySet<string> = new Set(['sink.postgres']);

/** Throws the first checked table's problem as a JobError naming its operator. */
export async function checkFlinkSinkTables(job: Job): Promise<void> {
  const operators = job.operators.filter((o) => CHECKED_KINDS.has(o.kind));
  if (operators.length === 0) return;
  await loadFactories(operators.map((o) => o.kind));
  for (const operator of operators) {
    const check = await findFactory(operator.kind)?.testConnection?.(operator.params, operator.id);
    if (check !== undefined && !check.ok) throw new JobError(check.message, operator.id);
  }
}
