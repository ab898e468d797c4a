// The binary state file: what goes in comes back, in order, whatever the characters and sizes;
// a damaged or foreign file is refused with a message naming it. And the checksum the files
// carry is the standard CRC-32, continued over the chunks as they are written.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointStorage } from './checkpointStorage.js';
import { crc32, crc32Hex } from './crc32.js';
import { readStateFile, StateFileWriter } from './stateFile.js';

let root: string;
let storage: CheckpointStorage;
let files = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-state-file-'));
  storage = new CheckpointStorage(root);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

type Rec = ['set', string, string] | ['delete', string] | ['drop', string, string];

async function write(records: readonly Rec[]) {
  const path = storage.dataPath('op', 0, `changes-${++files}.kv`);
  const writer = new StateFileWriter(storage, path);
  for (const r of records) {
    const wait =
      r[0] === 'set'
        ? writer.set(r[1], r[2])
        : r[0] === 'delete'
          ? writer.delete(r[1])
          : writer.drop(r[1], r[2]);
    if (wait !== undefined) await wait;
  }
  const ref = await writer.close();
  expect(writer.bytes).toBe(ref.bytes);
  return ref;
}

async function read(path: string, name?: string): Promise<Rec[]> {
  const out: Rec[] = [];
  await readStateFile(
    storage.absolute(path),
    {
      set: (key, value) => void out.push(['set', key, value]),
      delete: (key) => void out.push(['delete', key]),
      drop: (gte, lt) => void out.push(['drop', gte, lt]),
    },
    name,
  );
  return out;
}

describe('state files', () => {
  it('give back sets, deletes and drops in order, ASCII or not, across many blocks', async () => {
    const records: Rec[] = [];
    for (let i = 0; i < 40_000; i++) {
      const key = `00${(i % 128).toString(16).padStart(2, '0')}v\0acc\0key-${i}`;
      if (i % 7 === 3) records.push(['delete', key]);
      else records.push(['set', key, JSON.stringify({ n: i, s: i % 1000 === 0 ? 'é中😀' : 'x' })]);
      if (i % 5000 === 4999) records.push(['drop', `00${i % 10}m\0bag\0`, `00${i % 10}m\0bag\x01`]);
    }
    // A value far larger than a block, one of nothing but non-ASCII characters, an empty one.
    records.push(['set', '0001vbig\0k', `"${'y'.repeat(3 << 20)}"`]);
    records.push(['set', '0001vwide\0ключ', `"${'€'.repeat(500_000)}"`]);
    records.push(['set', '0001vempty\0', '']);
    const ref = await write(records);
    expect('crc32' in ref && ref.crc32).toBe(crc32Hex(crc32(await readFile(storage.absolute(ref)))));
    expect(await read(ref.path)).toEqual(records);
  });

  it('store a lone surrogate as U+FFFD, as LevelDB does', async () => {
    const ref = await write([['set', '0000vs\0\ud800a', '"\udc00"']]);
    expect(await read(ref.path)).toEqual([['set', '0000vs\0\ufffda', '"\ufffd"']]);
  });

  it('give back records whose lengths need more varint bytes in UTF-8 than in UTF-16 units', async () => {
    // 100 units of 'é' are 200 bytes: a one-byte length in units, two bytes once encoded. Among
    // ASCII records, in a block that also holds a lone surrogate, so each string is encoded apart.
    const wide = 'é'.repeat(100);
    const records: Rec[] = [
      ['set', '0000va\0ascii', '1'],
      ['set', `0000va\0${wide}`, `"${wide}"`],
      ['delete', `0000va\0${'ü'.repeat(127)}`],
      ['drop', `0000mb\0${wide}\0`, `0000mb\0${wide}\x01`],
      ['set', '0000va\0\ud800', '""'],
      ['set', '0000va\0x', ''],
    ];
    const ref = await write(records);
    const expected = records.map((r): Rec => (r[1].endsWith('\ud800') ? ['set', '0000va\0\ufffd', '""'] : r));
    expect(await read(ref.path)).toEqual(expected);
  });

  it('end a block where the writer is told to, and read back the same records', async () => {
    const records: Rec[] = Array.from({ length: 500 }, (_, i) => [
      'set',
      `0000vk\0${i}`,
      i % 3 === 0 ? '' : `"${'é'.repeat(i % 5)}"`,
    ]);
    const one = await write(records);
    const path = storage.dataPath('op', 2, 'changes-1.kv');
    const writer = new StateFileWriter(storage, path);
    expect(writer.endBlock()).toBeUndefined();
    for (const [i, r] of records.entries()) {
      writer.set(r[1], r[2]!);
      if (i % 7 === 0) writer.endBlock();
    }
    writer.endBlock();
    const many = await writer.close();
    // Blocks after records 0, 7, ..., 497 and the last two: 72 more than one, 12 bytes of header each.
    expect(many.bytes).toBe(one.bytes + 72 * 12);
    expect(await read(many.path)).toEqual(records);
  });

  it('can be empty, and are created only by their first block or by close', async () => {
    const path = storage.dataPath('op', 1, 'base-1.kv');
    const writer = new StateFileWriter(storage, path);
    writer.set('0000va\0k', '1');
    await expect(readFile(storage.absolute(path))).rejects.toThrow(/ENOENT/);
    await writer.close();
    expect(await read(path)).toEqual([['set', '0000va\0k', '1']]);
    const empty = await write([]);
    expect(empty.bytes).toBe(8);
    expect(await read(empty.path)).toEqual([]);
  });

  it('refuse a truncated file, a foreign file and another layout, naming the file', async () => {
    const records: Rec[] = Array.from({ length: 1000 }, (_, i) => ['set', `0000vk\0${i}`, String(i)]);
    const cut = await write(records);
    await truncate(storage.absolute(cut), cut.bytes - 3);
    await expect(read(cut.path, 'data/op-0/cut.kv')).rejects.toThrow(
      /state file data\/op-0\/cut\.kv ends inside a block/,
    );

    const foreign = storage.dataPath('op', 0, 'foreign.kv');
    await writeFile(storage.absolute(foreign), '["0000vk\\u0000a",1]\n');
    await expect(read(foreign)).rejects.toThrow(/is not a Pipewright state file/);

    const other = await write(records);
    const bytes = await readFile(storage.absolute(other));
    bytes[7] = 9;
    await writeFile(storage.absolute(other), bytes);
    await expect(read(other.path)).rejects.toThrow(/layout version 9; this version of Pipewright reads 1/);
  });
});

describe('the checksum of checkpoint data files', () => {
  it('is the standard CRC-32, continued over pieces, written as 8 hex digits', () => {
    // The check value of CRC-32 (zlib's, gzip's, PNG's): another checksum put in its place fails here.
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    // checkpointStorage.ts folds each chunk it writes or reads into a running value.
    const data = randomBytes(100_003);
    expect(crc32(data.subarray(40_000), crc32(data.subarray(0, 40_000)))).toBe(crc32(data));
    expect(crc32Hex(0xcbf43926)).toBe('cbf43926');
    expect(crc32Hex(0xabc)).toBe('00000abc');
  });
});
