// Where a traced source record is, in a person's terms: the line of a file (counted on from
// lines counted before, in any order), a Kafka partition and offset, a PostgreSQL LSN.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineNumbers, lsnText, recordPlace } from './recordPlace.js';

describe('the place of a source record', () => {
  it('names a line of a file by its number, however the offsets are asked for', async () => {
    const lines = ['{"a":1}', '{"b":"é"}', '', '{"c":3}', '{"d":4}'];
    const file = join(await mkdtemp(join(tmpdir(), 'pipewright-place-')), 'in.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    const offsets = lines.map((_, k) =>
      lines.slice(0, k).reduce((n, line) => n + Buffer.byteLength(line) + 1, 0),
    );
    const numbers = new LineNumbers();
    for (const k of [3, 1, 4, 0, 3, 2]) expect(numbers.lineAt(file, offsets[k]!)).toBe(k + 1);
    const source = { kind: 'file', operatorId: 'in', file } as const;
    expect(recordPlace(source, offsets[4]!, numbers)).toBe('in.jsonl line 5');
    // A file gone since: its byte offset, as the engine has it.
    const gone = { kind: 'file', operatorId: 'in', file: `${file}.gone` } as const;
    expect(recordPlace(gone, 12, new LineNumbers())).toBe('in.jsonl.gone at byte 12');
  });

  it('names a Kafka record by partition and offset, a PostgreSQL change by its LSN', () => {
    const numbers = new LineNumbers();
    const kafka = { kind: 'at', operatorId: 'k', label: 'Kafka topic "orders" partition 3 offset' } as const;
    expect(recordPlace(kafka, 42, numbers)).toBe('Kafka topic "orders" partition 3 offset 42');
    const change = { kind: 'at', operatorId: 'p', label: 'table "t" change at LSN' } as const;
    expect(recordPlace(change, 0x16b3748, numbers)).toBe('table "t" change at LSN 0/16B3748');
    expect(lsnText(0x16_b374d848)).toBe('16/B374D848');
    expect(recordPlace({ kind: 'generator', operatorId: 'g' }, 7, numbers)).toBe('generator "g" record 7');
  });
});
