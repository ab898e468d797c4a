// source.jsonl at the edges of its input's encoding: a byte order mark at the start of the
// file, and bytes that are not UTF-8. Run on the logic the registry makes (the generic reader
// logic over the kind's enumerator and reader) with a stand-in emitter, so
// the byte offsets it keeps for checkpoints and the lines it names can be checked exactly.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobError } from '../graph/jobError.js';
import type { PlannedEdge, PlannedOperator } from '../graph/plan.js';
import { BatchDecoder, BatchEncoder } from '../runtime/batchCodec.js';
import { type Channel, LocalChannel } from '../runtime/channel.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import { Emitter } from '../runtime/emitter.js';
import type { ChannelItem } from '../runtime/envelope.js';
import type { OperatorLogic, SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { describeRecordSource, type RecordSource } from '../runtime/recordSource.js';
import { OutboundChannel } from '../runtime/threadChannel.js';
import { prepareOperator } from './registry.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-source-jsonl-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Read {
  value: unknown;
  /** The record's byte offset and the FILE:LINE it names. */
  position: number;
  at: string;
}

class CollectingEmitter {
  readonly lineage: { timestamp: number | undefined; source: RecordSource | undefined; position: number } = {
    timestamp: undefined,
    source: undefined,
    position: 0,
  };
  readonly blocked = false;
  readonly read: Read[] = [];
  /** Naming a record's line reads the file up to it: big files' tests name only the lines they check. */
  constructor(private readonly namesLines: boolean) {}
  emit(value: unknown): void {
    const { source, position } = this.lineage;
    this.read.push({ value, position, at: this.namesLines ? describeRecordSource(source!, position) : '' });
  }
}

function sourceLogic(
  file: string,
  subtask = 0,
  parallelism = 1,
  restoredSplits?: readonly ConnectorState[],
  realEmitter?: Emitter,
  namesLines = true,
): { logic: OperatorLogic; emitter: CollectingEmitter } {
  const emitter = new CollectingEmitter(namesLines);
  const operator = {
    id: 'src',
    parallelism,
    operator: { id: 'src', kind: 'source.jsonl', params: { path: file } },
  } as unknown as PlannedOperator;
  const env = {
    operator,
    subtask,
    parallelism,
    jobDir: dir,
    emitter: realEmitter ?? (emitter as unknown as Emitter),
    state: undefined,
    current: undefined,
    input: undefined,
    watermark: Number.NEGATIVE_INFINITY,
    timers: undefined,
    checkpoints: undefined,
  } satisfies SubtaskEnvironment;
  return { logic: prepareOperator(operator, dir, undefined, restoredSplits).create(env), emitter };
}

/** Produces until the source is exhausted, `batch` records at a time. */
async function drain(logic: OperatorLogic, batch = 1000): Promise<void> {
  while ((await logic.produce(batch)) >= 0);
}

async function readAll(file: string, parallelism = 1, namesLines = true): Promise<Read[]> {
  const all: Read[] = [];
  for (let s = 0; s < parallelism; s++) {
    const { logic, emitter } = sourceLogic(file, s, parallelism, undefined, undefined, namesLines);
    await logic.open();
    await drain(logic);
    await logic.endInput();
    all.push(...emitter.read);
  }
  return all;
}

async function failure(file: string, namesLines = true): Promise<JobError> {
  const { logic } = sourceLogic(file, 0, 1, undefined, undefined, namesLines);
  await logic.open();
  try {
    await drain(logic);
  } catch (error) {
    expect(error).toBeInstanceOf(JobError);
    return error as JobError;
  } finally {
    await logic.abort();
  }
  throw new Error('expected the source to fail');
}

const lines = ['{"i":0}', '{"i":1}', '', '{"i":2}', '{"i":3}'];

describe('a byte order mark at the start of the file', () => {
  it('is skipped; offsets stay byte offsets of the file and lines stay its lines', async () => {
    const file = join(dir, 'bom.jsonl');
    await writeFile(file, Buffer.concat([BOM, Buffer.from(`${lines.join('\n')}\n`)]));
    const read = await readAll('bom.jsonl');
    expect(read).toEqual([
      { value: { i: 0 }, position: 0, at: 'bom.jsonl:1' },
      { value: { i: 1 }, position: 11, at: 'bom.jsonl:2' },
      { value: { i: 2 }, position: 20, at: 'bom.jsonl:4' },
      { value: { i: 3 }, position: 28, at: 'bom.jsonl:5' },
    ]);
  });

  it('is skipped by subtask 0 only, whatever the split', async () => {
    const file = join(dir, 'bom-split.jsonl');
    const many = Array.from({ length: 50 }, (_, i) => `{"i":${i}}`);
    await writeFile(file, Buffer.concat([BOM, Buffer.from(`${many.join('\r\n')}\r\n`)]));
    for (const parallelism of [1, 2, 3, 7]) {
      const read = await readAll('bom-split.jsonl', parallelism);
      expect(read.map((r) => r.value)).toEqual(many.map((line) => JSON.parse(line)));
    }
  });

  it('a restore from the very start skips it again; from a later offset reads on exactly', async () => {
    const file = join(dir, 'bom-restore.jsonl');
    await writeFile(file, Buffer.concat([BOM, Buffer.from(`${lines.join('\n')}\n`)]));
    const first = sourceLogic('bom-restore.jsonl');
    await first.logic.open();
    const atStart = first.logic.snapshot(1).splits!;
    expect(await first.logic.produce(2)).toBe(2);
    const later = first.logic.snapshot(2).splits!;
    await first.logic.abort();
    expect(atStart).toEqual([{ kind: 'source.jsonl', payload: { file, start: 0, end: 36 } }]);
    expect(later).toEqual([{ kind: 'source.jsonl', payload: { file, start: 19, end: 36 } }]);

    for (const [splits, from] of [
      [atStart, 0],
      [later, 2],
    ] as const) {
      const again = sourceLogic('bom-restore.jsonl', 0, 1, splits);
      await again.logic.open();
      await drain(again.logic);
      await again.logic.endInput();
      expect(again.emitter.read.map((r) => r.value)).toEqual([0, 1, 2, 3].slice(from).map((i) => ({ i })));
    }
  });

  it('a line that is only a byte order mark is blank; a mark after the start is not skipped', async () => {
    await writeFile(join(dir, 'only-bom.jsonl'), Buffer.concat([BOM, Buffer.from('\n{"i":0}\n')]));
    expect((await readAll('only-bom.jsonl')).map((r) => r.at)).toEqual(['only-bom.jsonl:2']);

    await writeFile(
      join(dir, 'inner-bom.jsonl'),
      Buffer.concat([Buffer.from('{"i":0}\n'), BOM, Buffer.from('{}\n')]),
    );
    expect((await failure('inner-bom.jsonl')).message).toMatch(/^inner-bom\.jsonl:2 is not valid JSON/);
  });

  it('a bad line after it is named by its line', async () => {
    await writeFile(
      join(dir, 'bom-bad.jsonl'),
      Buffer.concat([BOM, Buffer.from('{"i":0}\n{"i":1}\nnope\n')]),
    );
    expect((await failure('bom-bad.jsonl')).message).toMatch(/^bom-bad\.jsonl:3 is not valid JSON/);
  });
});

describe('bytes that are not UTF-8', () => {
  it('stop the source, naming the file and line', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"name":"ok"}\n{"name":"caf'),
      Buffer.from([0xe9]), // Latin-1 é
      Buffer.from('"}\n'),
    ]);
    await writeFile(join(dir, 'latin1.jsonl'), bad);
    expect((await failure('latin1.jsonl')).message).toBe(
      'latin1.jsonl:2 is not valid UTF-8 (save the file as UTF-8)',
    );
  });

  it('a replacement character written as UTF-8 is data like any other', async () => {
    await writeFile(join(dir, 'fffd.jsonl'), '{"name":"\uFFFD and é and 😀"}\n');
    expect((await readAll('fffd.jsonl')).map((r) => r.value)).toEqual([{ name: '\uFFFD and é and 😀' }]);
  });

  it('a character cut by the end of the file is not UTF-8 either', async () => {
    await writeFile(
      join(dir, 'cut.jsonl'),
      Buffer.concat([Buffer.from('{}\n"'), Buffer.from('😀').subarray(0, 2)]),
    );
    expect((await failure('cut.jsonl')).message).toBe(
      'cut.jsonl:2 is not valid UTF-8 (save the file as UTF-8)',
    );
  });
});

describe('a line on its way to another thread', () => {
  const edge: PlannedEdge = {
    id: 'e1',
    from: 'src',
    fromPort: 'out',
    to: 'acc',
    partition: 'forward',
    keyPaths: [],
    compositeKey: false,
    feedback: false,
  };
  const text = ['{"k": "a",  "v": 1}', '{"k":"b","v":[2, 3]}'];

  /** Reads the file through a real emitter whose one channel is `channel`. */
  async function readInto(file: string, channel: Channel): Promise<void> {
    const emitter = new Emitter(0, 128, new Map([['out', [edge]]]), () => [channel]);
    const { logic } = sourceLogic(file, 0, 1, undefined, emitter);
    await logic.open();
    await drain(logic);
    await logic.endInput();
  }

  it('goes as the text that was read, and the other side reads the same records', async () => {
    await writeFile(join(dir, 'text.jsonl'), `${text.join('\n')}\n`);
    const channel = new OutboundChannel(0, edge, 0, 0, 64, { urgent: () => {} });
    await readInto('text.jsonl', channel);
    const sent = channel.takePending().filter((item) => item.type === 'record');
    expect(sent.map((e) => e.text)).toEqual(text);
    const encoded = new BatchEncoder().encode([[0, sent]]);
    // Not encoded again: the texts go with their spaces, and no value is in the values' JSON.
    expect(encoded.lines).toBe(`[${text.join(',')}]`);
    expect(encoded.values).toBe('[]');
    const received: ChannelItem[] = [];
    new BatchDecoder().decode(encoded, (_, items) => received.push(...items));
    expect(received.map((e) => (e.type === 'record' ? [e.value, e.position] : e))).toEqual([
      [{ k: 'a', v: 1 }, 0],
      [{ k: 'b', v: [2, 3] }, 20],
    ]);
  });

  it('goes without the carriage return of a CRLF line', async () => {
    await writeFile(join(dir, 'crlf.jsonl'), `${text.join('\r\n')}\r\n`);
    const channel = new OutboundChannel(0, edge, 0, 0, 64, { urgent: () => {} });
    await readInto('crlf.jsonl', channel);
    const sent = channel.takePending().filter((item) => item.type === 'record');
    expect(sent.map((e) => [e.text, e.position])).toEqual([
      [text[0], 0],
      [text[1], 21],
    ]);
  });

  it('stays on this thread without its text', async () => {
    await writeFile(join(dir, 'local.jsonl'), `${text.join('\n')}\n`);
    const channel = new LocalChannel(edge, 0, 0, 64, { queued: 0 });
    await readInto('local.jsonl', channel);
    const kept: ChannelItem[] = channel.contents();
    expect(kept.filter((e) => e.type === 'record').map((e) => [e.value, e.text])).toEqual([
      [{ k: 'a', v: 1 }, undefined],
      [{ k: 'b', v: [2, 3] }, undefined],
    ]);
  });
});

describe('lines decoded a chunk at a time', () => {
  /**
   * A file of over 2 MB (the reader's chunk is 1 MB): ASCII lines with CRLF, blank and
   * whitespace lines, a non-ASCII line in the middle of the first chunk and at the end of the
   * second, and a last line with no newline; its records and their byte offsets as the file has them.
   */
  function mixedFile(): { bytes: Buffer; expected: { value: unknown; position: number; line: number }[] } {
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) {
      if (i % 997 === 0) lines.push('');
      else if (i % 1009 === 0) lines.push('  \t');
      else if (i === 7_000) lines.push(`{"i":${i},"name":"café ☕ 😀"}`);
      else if (i === 29_000) lines.push(`{"i":${i},"name":"naïve"}`);
      else lines.push(`{"i":${i},"pad":"${'x'.repeat(i % 50)}"}${i % 3 === 0 ? '\r' : ''}`);
    }
    const bytes = Buffer.from(lines.join('\n'));
    const expected: { value: unknown; position: number; line: number }[] = [];
    let offset = 0;
    lines.forEach((line, index) => {
      if (line.trim().length > 0)
        expected.push({ value: JSON.parse(line), position: offset, line: index + 1 });
      offset += Buffer.byteLength(line) + 1;
    });
    return { bytes, expected };
  }

  it('give every record once, at its byte offset and line, at any parallelism', async () => {
    const { bytes, expected } = mixedFile();
    expect(bytes.length).toBeGreaterThan(2 * (1 << 20));
    await writeFile(join(dir, 'mixed.jsonl'), bytes);
    const source: RecordSource = { kind: 'file', operatorId: 'src', file: join(dir, 'mixed.jsonl') };
    for (const parallelism of [1, 3]) {
      const read = await readAll('mixed.jsonl', parallelism, false);
      read.sort((a, b) => a.position - b.position);
      expect(read.map((r) => [r.value, r.position])).toEqual(expected.map((e) => [e.value, e.position]));
    }
    // The line an error would name, around the non-ASCII lines and the chunks' ends.
    for (const e of expected.filter((_, i) => i % 4_999 === 0 || [6_999, 7_000, 7_001, 28_999].includes(i)))
      expect(describeRecordSource(source, e.position)).toBe(`mixed.jsonl:${e.line}`);
  });

  it('a restore from a position inside a decoded chunk reads on exactly', async () => {
    const { bytes, expected } = mixedFile();
    await writeFile(join(dir, 'mixed-restore.jsonl'), bytes);
    const first = sourceLogic('mixed-restore.jsonl', 0, 1, undefined, undefined, false);
    await first.logic.open();
    let taken = 0;
    while (taken < 12_345) taken += await first.logic.produce(Math.min(1000, 12_345 - taken));
    const splits = first.logic.snapshot(1).splits!;
    await first.logic.abort();
    expect(splits).toEqual([
      { kind: 'source.jsonl', payload: expect.objectContaining({ start: expected[12_345]!.position }) },
    ]);
    const again = sourceLogic('mixed-restore.jsonl', 0, 1, splits, undefined, false);
    await again.logic.open();
    await drain(again.logic);
    await again.logic.endInput();
    expect(again.emitter.read.map((r) => r.position)).toEqual(expected.slice(12_345).map((e) => e.position));
  });

  it('a bad line among ASCII lines is named by its line', async () => {
    const good = Array.from({ length: 30_000 }, (_, i) => `{"i":${i}}`);
    good[25_000] = '{"i":25000,}';
    await writeFile(join(dir, 'ascii-bad.jsonl'), `${good.join('\n')}\n`);
    expect((await failure('ascii-bad.jsonl', false)).message).toMatch(
      /^ascii-bad\.jsonl:25001 is not valid JSON/,
    );
  });
});
