// The published JSON Schema of the job file (docs/job-file.schema.json), generated from the same
// zod schema the validator uses so that the two cannot drift apart. It describes the file as
// written (`io: 'input'`): fields with defaults are optional. The graph rules (cycles, keyed
// inputs, ports...) are beyond JSON Schema; `validateJob` is the full check. Kinds registered at run
// time are in it too.
import { z } from 'zod';
import { currentJobSchema, JOB_FORMAT } from './schema.js';

export const JOB_SCHEMA_ID = 'urn:pipewright:schema:job:1';

export function jobJsonSchema(): Record<string, unknown> {
  const { $schema, ...body } = z.toJSONSchema(currentJobSchema(), { io: 'input' });
  return {
    $schema,
    $id: JOB_SCHEMA_ID,
    title: 'Pipewright job file',
    description:
      `A Pipewright stream-processing job, format ${JOB_FORMAT}. This schema checks the shape of the file; ` +
      'the graph rules (edges to known operators and ports, cycles only through feedback edges, keyed inputs, ' +
      'forward parallelism) are checked by `pipewright validate`. See docs/job-file.md.',
    ...body,
  };
}
