// Whether the files a job reads are there. The validator is pure and cannot look, so the host
// does, for the designer (the browser form and the desktop shell alike) when a job is opened,
// saved or run: a missing input is then a warning in the Problems panel before a run, instead
// of a failed run after it. The designer sends the list of files (engine/graph/inputFiles.ts),
// never the job's text: a job file of many megabytes would be sent back over the protocol.
// `pipewright validate` says the same warnings (engine/cli), so it lives below both.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { formatJsonPath, type InputFileRef } from '../graph/index.js';
import type { FileProblem } from '../protocol/protocol.js';

type Fault = { readonly code: 'input-file-missing' | 'input-file-unreadable'; readonly says: string };

async function faultOf(path: string): Promise<Fault | undefined> {
  try {
    if ((await stat(path)).isDirectory())
      return { code: 'input-file-unreadable', says: 'is a folder, not a file' };
    await access(path, constants.R_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { code: 'input-file-missing', says: 'not found' };
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error));
    return { code: 'input-file-unreadable', says: `cannot be read: ${why}` };
  }
}

/** Where a missing file was looked for, in the fewest words that still say it. */
function lookedWhere(file: string, resolved: string): string {
  if (isAbsolute(file)) return '';
  return /[\\/]/.test(file) ? ` (looked for ${resolved})` : ' next to the job file';
}

/**
 * The problems with the input files `inputs` of the job whose file is `jobFile` (absolute:
 * relative inputs resolve against its folder, as a run resolves them).
 */
export async function checkInputFiles(
  jobFile: string,
  inputs: readonly InputFileRef[],
): Promise<FileProblem[]> {
  if (!isAbsolute(jobFile))
    throw new Error(`Cannot check the files of ${jobFile}: the path must be absolute`);
  const folder = dirname(resolve(jobFile));
  const checked = await Promise.all(
    inputs.map(async (input) => {
      const resolved = resolve(folder, input.file);
      const fault = await faultOf(resolved);
      if (fault === undefined) return undefined;
      const where = fault.code === 'input-file-missing' ? lookedWhere(input.file, resolved) : '';
      const problem: FileProblem = {
        code: fault.code,
        severity: 'warning',
        message: `operator ${JSON.stringify(input.operator)}: input file ${input.file} ${fault.says}${where}`,
        path: formatJsonPath(['operators', input.index, 'params', input.param]),
        ids: [input.operator],
        operator: input.operator,
        param: input.param,
        file: input.file,
      };
      return problem;
    }),
  );
  return checked.filter((p) => p !== undefined);
}
