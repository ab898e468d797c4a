// What `load` accepts: a checkpoint of this format whose metadata has its checksum and whose files
// all have the size and checksum its metadata records (CRC-32 for the engine's own files, SHA-256
// for sink parts). Anything else is refused with a reason a user can act on.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_FORMAT, type CheckpointMetadata, type FileRef } from './checkpointMetadata.js';
import { CheckpointStorage } from './checkpointStorage.js';

let root: string;
let dirs = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-checkpoint-storage-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function metadata(id: number, refs: { feedback?: FileRef; sinkPart?: FileRef }): CheckpointMetadata {
  return {
    format: CHECKPOINT_FORMAT,
    id,
    job: 'j',
    maxParallelism: 128,
    stateBackend: 'level',
    triggeredAt: new Date(0).toISOString(),
    completedAt: new Date(0).toISOString(),
    operators: [],
    subtasks: [
      {
        operator: 'op',
        subtask: 0,
        ...(refs.feedback === undefined ? {} : { feedback: refs.feedback }),
        ...(refs.sinkPart === undefined
          ? {}
          : { committable: { kind: 'sink.jsonl', payload: refs.sinkPart, files: [refs.sinkPart] } }),
      },
    ],
    sinks: [],
  };
}

/** A checkpoint with a feedback log (JSON lines, CRC-32) and a sink part (SHA-256). */
async function checkpoint(id: number) {
  const storage = new CheckpointStorage(join(root, `c-${dirs++}`));
  const writer = storage.createDataFile(storage.dataPath('op', 0, `feedback-${id}.jsonl`));
  for (let i = 0; i < 50_000; i++) {
    const wait = writer.write([{ i, text: 'é' }, `k${i}`, i % 128, null]);
    if (wait !== undefined) await wait;
  }
  const feedback = await writer.close();
  const partPath = storage.dataPath('out', 0, `part-${id}.jsonl`);
  const part = Buffer.from('{"a":1}\n{"a":2}\n');
  await mkdir(dirname(storage.absolute(partPath)), { recursive: true });
  await writeFile(storage.absolute(partPath), part);
  const sinkPart = {
    path: partPath,
    bytes: part.length,
    sha256: createHash('sha256').update(part).digest('hex'),
  };
  await storage.writeMetadata(metadata(id, { feedback, sinkPart }));
  return { storage, feedback, sinkPart };
}

async function flipByte(path: string, at: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, at);
    byte[0]! ^= 0x01;
    await handle.write(byte, 0, 1, at);
  } finally {
    await handle.close();
  }
}

describe('CheckpointStorage.load', () => {
  it('accepts an intact checkpoint, its lines read back as written', async () => {
    const { storage, feedback } = await checkpoint(3);
    expect(feedback).toMatchObject({
      bytes: expect.any(Number),
      crc32: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect((await storage.load(3)).id).toBe(3);
    let n = 0;
    for await (const line of storage.readLines(feedback)) {
      expect(line).toEqual([{ i: n, text: 'é' }, `k${n}`, n % 128, null]);
      n++;
    }
    expect(n).toBe(50_000);
  });

  it('refuses a file with a flipped byte (CRC-32 or SHA-256) or another size, naming it', async () => {
    const a = await checkpoint(4);
    await flipByte(a.storage.absolute(a.feedback), Math.floor(a.feedback.bytes / 2));
    await expect(a.storage.load(4)).rejects.toThrow(
      `checkpoint 4: file ${a.feedback.path} is corrupted (checksum)`,
    );
    const b = await checkpoint(5);
    await flipByte(b.storage.absolute(b.sinkPart), 3);
    await expect(b.storage.load(5)).rejects.toThrow(`file ${b.sinkPart.path} is corrupted (checksum)`);
    const c = await checkpoint(6);
    await writeFile(c.storage.absolute(c.feedback), 'short');
    await expect(c.storage.load(6)).rejects.toThrow(
      `checkpoint 6: file ${c.feedback.path} has 5 bytes, not ${c.feedback.bytes}`,
    );
  });

  it('refuses metadata with a bit flipped or its checksum gone; accepts it reformatted', async () => {
    const { storage } = await checkpoint(8);
    const path = join(storage.root, 'chk-8.json');
    const written = await readFile(path, 'utf8');
    const content = JSON.parse(written);
    expect(content.crc32).toMatch(/^[0-9a-f]{8}$/);
    // A digit of the sink part's size, one bit flipped: still JSON, still the same length.
    const at = written.indexOf('"bytes": 16') + '"bytes": 1'.length;
    await flipByte(path, at);
    expect((await readFile(path, 'utf8')).slice(at - 10, at + 1)).toBe('"bytes": 17');
    await expect(storage.load(8)).rejects.toThrow('checkpoint 8: its metadata is corrupted (checksum)');
    // The checksum's own name damaged: the current format always has one.
    const own = written.lastIndexOf('"crc32": "');
    await writeFile(path, `${written.slice(0, own)}"crc33"${written.slice(own + '"crc32"'.length)}`);
    await expect(storage.load(8)).rejects.toThrow(
      'checkpoint 8: its metadata is corrupted (it has no checksum)',
    );
    // The format's version changed to an older one in a file with a checksum: refused for it too.
    await writeFile(path, written.replace(CHECKPOINT_FORMAT, 'pipewright.checkpoint/3'));
    await expect(storage.load(8)).rejects.toThrow('checkpoint 8: its metadata is corrupted (checksum)');
    // Same content, keys in another order, no indentation: the checksum is of the content.
    const { crc32, ...rest } = content;
    const reordered = Object.fromEntries(Object.entries(rest).reverse());
    await writeFile(path, JSON.stringify({ crc32, ...reordered }));
    expect((await storage.load(8)).id).toBe(8);
  });

  it('reads format 3 metadata, which had no checksum of its own', async () => {
    const { storage } = await checkpoint(9);
    const path = join(storage.root, 'chk-9.json');
    const { crc32: _, ...content } = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...content, format: 'pipewright.checkpoint/3' }, null, 1));
    const loaded = await storage.load(9);
    expect(loaded).toMatchObject({ format: CHECKPOINT_FORMAT, id: 9 });
    expect(loaded).not.toHaveProperty('crc32');
  });

  it('says which format a checkpoint of another version has', async () => {
    const { storage } = await checkpoint(7);
    const path = join(storage.root, 'chk-7.json');
    // Format 1 had no checksum of its metadata.
    const { crc32: _, ...old } = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...old, format: 'pipewright.checkpoint/1' }));
    await expect(storage.load(7)).rejects.toThrow(
      `checkpoint 7: it was written in format pipewright.checkpoint/1, which this version of Pipewright cannot read (it reads ${CHECKPOINT_FORMAT} only)`,
    );
    await writeFile(path, JSON.stringify({ id: 7 }));
    await expect(storage.load(7)).rejects.toThrow(
      /checkpoint 7: its metadata is not a Pipewright checkpoint/,
    );
  });
});

describe('CheckpointStorage.retain', () => {
  /** A checkpoint naming one feedback file per name given, each written to disk. */
  async function named(storage: CheckpointStorage, id: number, names: readonly string[]) {
    const refs: FileRef[] = [];
    for (const name of names) {
      const path = storage.dataPath('op', 0, name);
      await mkdir(dirname(storage.absolute(path)), { recursive: true });
      await writeFile(storage.absolute(path), name);
      refs.push({ path, bytes: name.length, crc32: '00000000' });
    }
    const [first, ...rest] = refs;
    const meta = metadata(id, first === undefined ? {} : { feedback: first });
    const extra = rest.map((feedback, k) => ({ operator: 'op', subtask: k + 1, feedback }));
    await storage.writeMetadata({ ...meta, subtasks: [...meta.subtasks, ...extra] });
  }

  async function left(storage: CheckpointStorage): Promise<string[]> {
    const data = (await readdir(join(storage.root, 'data', 'op-0'))).sort();
    return [...(await storage.completedIds()).map((id) => `chk-${id}`), ...data];
  }

  it('keeps what the kept checkpoints name, from metadata it wrote or finds on disk', async () => {
    const dir = join(root, `retain-${dirs++}`);
    const writer = new CheckpointStorage(dir);
    await named(writer, 1, ['base-1.kv', 'changes-1.kv']);
    await named(writer, 2, ['base-1.kv', 'changes-2.kv']);
    await named(writer, 3, ['base-3.kv']);
    await named(writer, 4, ['base-3.kv', 'changes-4.kv']);
    await writer.retain(2, 4);
    expect(await left(writer)).toEqual(['chk-4', 'chk-3', 'base-3.kv', 'changes-4.kv']);
    // Another storage on the same folder (a later run) reads the metadata it did not write.
    const reader = new CheckpointStorage(dir);
    await named(reader, 5, ['base-3.kv', 'changes-5.kv']);
    await reader.retain(1, 5);
    expect(await left(reader)).toEqual(['chk-5', 'base-3.kv', 'changes-5.kv']);
  });

  it('follows a checkpoint id forgotten and taken again (a debug run going back)', async () => {
    const storage = new CheckpointStorage(join(root, `retain-${dirs++}`));
    await named(storage, 1, ['base-1.kv']);
    await named(storage, 2, ['base-1.kv', 'changes-2.kv']);
    await storage.forget(2);
    await named(storage, 2, ['base-1.kv', 'changes-2.2.kv']);
    await storage.retain(1, 2);
    expect(await left(storage)).toEqual(['chk-2', 'base-1.kv', 'changes-2.2.kv']);
  });
});
