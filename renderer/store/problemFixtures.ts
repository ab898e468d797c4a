// What the problem tests hand the designer as the host would: its warning that a job's input
// file is missing (job.checkFiles), for the source "src" whose path is missing.jsonl.
import type { FileProblem } from '../../engine/protocol/protocol.js';

export const missingInput: FileProblem = {
  code: 'input-file-missing',
  severity: 'warning',
  message: 'operator "src": input file missing.jsonl not found next to the job file',
  path: '$.operators[0].params.path',
  ids: ['src'],
  operator: 'src',
  param: 'path',
  file: 'missing.jsonl',
};
