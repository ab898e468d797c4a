import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile, serializeDraft } from './jobFileText';

const examples = join(import.meta.dirname, '../../assets/examples');

describe('job file text', () => {
  it('gives back every template byte for byte', () => {
    const dirs = readdirSync(examples, { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? [d.name] : [],
    );
    expect(dirs.length).toBeGreaterThanOrEqual(3);
    for (const dir of dirs) {
      const file = readdirSync(join(examples, dir)).find((f) => f.endsWith('.job.json'))!;
      const text = readFileSync(join(examples, dir, file), 'utf8');
      const parsed = parseJobFile(text);
      if (parsed.kind !== 'draft') throw new Error(`${file} did not parse`);
      expect(serializeDraft(parsed.draft), file).toBe(text);
    }
  });

  it('writes known fields in the contract order and keeps unknown ones after them', () => {
    const parsed = parseJobFile(
      JSON.stringify({
        x_custom: 1,
        edges: [{ to: 'b', partition: 'forward', from: 'a', id: 'e1', note: 'kept' }],
        operators: [{ params: { path: 'o.jsonl' }, kind: 'sink.jsonl', id: 'b' }],
        name: 'j',
        format: 'pipewright.job/1',
        editor: { viewport: { zoom: 1 }, positions: { b: { x: 1, y: 2 } } },
      }),
    );
    if (parsed.kind !== 'draft') throw new Error('did not parse');
    const text = serializeDraft(parsed.draft);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'format',
      'name',
      'operators',
      'edges',
      'editor',
      'x_custom',
    ]);
    expect(Object.keys(JSON.parse(text).edges[0])).toEqual(['id', 'from', 'to', 'partition', 'note']);
    expect(Object.keys(JSON.parse(text).editor)).toEqual(['positions', 'viewport']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('keeps a file that is not JSON as text, with the line of the fault', () => {
    const parsed = parseJobFile('{\n  "format": "pipewright.job/1",\n  "name": \n}');
    expect(parsed.kind).toBe('text');
    if (parsed.kind === 'text') {
      expect(parsed.problems[0]?.line).toBe(4);
    }
  });

  it('keeps JSON that is not an object as text too', () => {
    const parsed = parseJobFile('[1, 2]');
    expect(parsed.kind).toBe('text');
  });
});
