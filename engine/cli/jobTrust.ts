// Whether `pipewright run` runs a job as trusted, confined, or not at all (docs/security.md). A job
// file is data people download, so one that would name a file outside its folder (read or
// written, links followed) or read an environment variable runs only when the user said they
// trust it: `--trust`, a trusted folder in the data folder's trusted.json, or that very text of it
// trusted in the designer. Any other job runs as it always did, confined: the engine checks again
// on every thread as the operators are prepared.
import { defaultDataDir } from '../deploy/dataDir.js';
import { readTrustList, trustedBy, trustListFile } from '../deploy/trustList.js';
import type { Job } from '../graph/schema.js';
import { type Breach, confinementBreaches, describeBreach } from '../operators/confinement.js';

export type TrustDecision =
  | { readonly confined: boolean; readonly warning?: string }
  /** One line: what the job would do, and how to trust it. */
  | { readonly refusal: string; readonly warning?: string };

/** The breaches a refusal names; the rest are counted. */
const NAMED = 3;

function listed(breaches: readonly Breach[]): string {
  const words = breaches.slice(0, NAMED).map(describeBreach);
  const more = breaches.length - words.length;
  if (more > 0) words.push(`${more} more`);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

export async function trustDecision(options: {
  readonly jobFile: string;
  readonly text: string;
  readonly job: Job;
  readonly jobDir: string;
  /** --trust */
  readonly trust: boolean;
  readonly dataDir?: string;
}): Promise<TrustDecision> {
  if (options.trust) return { confined: false };
  const breaches = confinementBreaches(options.job.operators, options.jobDir);
  if (breaches.length === 0) return { confined: true };
  const dataDir = options.dataDir ?? defaultDataDir();
  const { list, problem } = await readTrustList(dataDir);
  const warning = problem === undefined ? undefined : `${problem} (it trusts no job until it is fixed)`;
  const by = await trustedBy(list, options.jobFile, options.text);
  if (by !== undefined) return { confined: false, ...(warning === undefined ? {} : { warning }) };
  return {
    refusal: `${options.jobFile} is not trusted, and it would ${listed(breaches)}: if you trust it, run it with --trust, or add its folder to "folders" in ${trustListFile(dataDir)}`,
    ...(warning === undefined ? {} : { warning }),
  };
}
