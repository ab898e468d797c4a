// What a job that is not trusted may not do (docs/security.md): name a file outside its own folder
// (read or write), or read an environment variable. The files are judged by where they really
// lead: the job's folder and the file (or its nearest existing folder) through every symbolic
// link, so that a link in a downloaded folder cannot point a sink at ~/.bashrc. The CLI lists
// every breach before it runs a job (one line refusing it); every thread that prepares an operator
// of a confined run checks it again (prepareOperator), so no caller can forget to.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { JobError } from '../graph/jobError.js';
import { type FileUse, jobReach } from '../graph/jobReach.js';

export type Breach =
  | (FileUse & {
      readonly type: 'file';
      /** Where the path really leads; undefined when it cannot be told (a loop of links). */
      readonly leadsTo: string | undefined;
    })
  | { readonly type: 'env'; readonly operator: string; readonly param: string; readonly variable: string };

/** Links followed at most, as the kernel's own limit: more is a loop. */
const MAX_LINKS = 40;

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/**
 * The real path `target` leads to: its nearest existing ancestor through realpath, the rest as
 * written; a dangling link on the way is followed by its text. Undefined for a loop of links.
 */
function realLocation(target: string, links = 0): string | undefined {
  const rest: string[] = [];
  let at = target;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest);
    } catch (error) {
      if (code(error) === 'ELOOP') return undefined;
    }
    let link: string | undefined;
    try {
      if (lstatSync(at).isSymbolicLink()) link = readlinkSync(at);
    } catch {
      // Not there at all: its folder is asked next.
    }
    if (link !== undefined) {
      if (links >= MAX_LINKS) return undefined;
      return realLocation(join(resolve(dirname(at), link), ...rest), links + 1);
    }
    const parent = dirname(at);
    if (parent === at) return target;
    rest.unshift(basename(at));
    at = parent;
  }
}

function insideFolder(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** Every breach of the operators of a job in `jobDir`, in the operators' order: files first, then variables. */
export function confinementBreaches(operators: readonly unknown[], jobDir: string): Breach[] {
  const reach = jobReach(operators);
  const folder = realLocation(resolve(jobDir)) ?? resolve(jobDir);
  const files: Breach[] = reach.files.flatMap((use) => {
    const leadsTo = realLocation(resolve(jobDir, use.path));
    return leadsTo !== undefined && insideFolder(folder, leadsTo)
      ? []
      : [{ ...use, type: 'file' as const, leadsTo }];
  });
  const env: Breach[] = reach.env.map((use) => ({ ...use, type: 'env' as const }));
  return [...files, ...env];
}

/** What a breach would do, in words: `write /home/u/.bashrc outside its folder (operator "out")`. */
export function describeBreach(breach: Breach): string {
  if (breach.type === 'env')
    return `read the environment variable ${breach.variable} (operator "${breach.operator}")`;
  const where = breach.leadsTo ?? `${breach.path} (a loop of links)`;
  return `${breach.access} ${where} outside its folder (operator "${breach.operator}")`;
}

function refusal(breach: Breach): JobError {
  const reason =
    breach.type === 'env'
      ? `param "${breach.param}" names the environment variable ${breach.variable}, and a job that is not trusted may not read the environment`
      : `param "${breach.param}" leads outside the job's folder (to ${breach.leadsTo ?? `${breach.path}, a loop of links`}), and a job that is not trusted reads and writes only inside its folder`;
  return new JobError(`operator "${breach.operator}": ${reason}`, breach.operator);
}

/**
 * Throws a JobError naming the operator's first breach, if it has one: what a confined run's
 * operators are checked with as they are prepared (params as written, before `${env:NAME}`).
 */
export function checkConfined(operator: unknown, jobDir: string): void {
  const breach = confinementBreaches([operator], jobDir)[0];
  if (breach !== undefined) throw refusal(breach);
}

/** The same for params on their own (a connection test opens no file): no environment variable. */
export function checkNoEnvironment(operatorId: string, params: unknown): void {
  const breach = jobReach([{ id: operatorId, params }]).env[0];
  if (breach !== undefined) throw refusal({ ...breach, type: 'env' });
}
