import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_SCHEMA_ID, jobJsonSchema } from './jsonSchema.js';
import { OPERATOR_KINDS } from './schema.js';

const file = new URL('../../docs/job-file.schema.json', import.meta.url);
const expected = `${JSON.stringify(jobJsonSchema(), null, 2)}\n`;

describe('the published JSON Schema', () => {
  // UPDATE_SCHEMA=1 regenerates the file after a change to schema.ts (npm run schema).
  it('docs/job-file.schema.json is generated from the zod schema', () => {
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(file, expected);
    expect(readFileSync(file, 'utf8'), 'docs/job-file.schema.json is stale: run npm run schema').toBe(
      expected,
    );
  });

  it('identifies itself and describes the file as written, defaults optional', () => {
    const schema = jobJsonSchema();
    expect(Object.keys(schema).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(JOB_SCHEMA_ID);
    expect(schema.required).toEqual(['format', 'name', 'operators']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('has one alternative per operator kind', () => {
    type Variant = { properties: { kind: { const: string } } };
    const { operators } = jobJsonSchema().properties as { operators: { items: { oneOf: Variant[] } } };
    expect(operators.items.oneOf.map((variant) => variant.properties.kind.const)).toEqual(OPERATOR_KINDS);
  });
});
