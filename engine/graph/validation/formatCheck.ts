// The first check of all: is this a Pipewright job file of the format this version reads? A
// file of another format gets only this problem, since its fields may mean something else.
import { JOB_FORMAT } from '../schema.js';
import type { Finding } from './finding.js';
import { isRecord } from './jsonPath.js';
import { describeValue, quote } from './valueWords.js';

export function formatFinding(root: unknown): Finding | undefined {
  if (!isRecord(root)) {
    return {
      code: 'format',
      message: `not a Pipewright job file: expected a JSON object with "format": ${quote(JOB_FORMAT)}, found ${describeValue(root)}`,
      path: [],
      ids: [],
    };
  }
  const { format } = root;
  if (format === JOB_FORMAT) return undefined;
  const at = ['format'];
  if (format === undefined) {
    return {
      code: 'format',
      message: `not a Pipewright job file: "format" is missing (a job file says "format": ${quote(JOB_FORMAT)})`,
      path: at,
      ids: [],
    };
  }
  const [family] = JOB_FORMAT.split('/');
  if (typeof format === 'string' && format.startsWith(`${family}/`)) {
    return {
      code: 'format',
      message: `format ${format} is not supported by this version (it reads ${JOB_FORMAT})`,
      path: at,
      ids: [],
    };
  }
  return {
    code: 'format',
    message: `not a Pipewright job file: format is ${describeValue(format)} (expected ${quote(JOB_FORMAT)})`,
    path: at,
    ids: [],
  };
}
