// The files that hold keyed state in a checkpoint: bases (every entry) and changes (what was
// written since the checkpoint before). Keys and values are strings in the store's own form
// already (a value is its JSON text), so they go to disk as they are, UTF-8 with their byte
// lengths, never escaped into JSON and parsed back. A file is an 8-byte header, "PWSTATE" and the
// layout version (1), then blocks, each
//
//   u32 records | u32 text bytes | u32 table bytes | text | table        (integers little-endian)
//
// text: each record's key and then its value, UTF-8, back to back, in record order;
// table: per record its kind (0 set, 1 delete, 2 drop the range [key, value)) and the byte lengths
// of its key and its value as unsigned LEB128 varints (a delete's value is empty).
//
// The text comes before the table because the writer encodes a whole block's text in one call (a
// call per string cost twice as much) and learns the byte lengths only from that. A block holds
// about 1 MiB of text: that is also the size of each write to disk.
import { open } from 'node:fs/promises';
import type { FileRef } from './checkpointMetadata.js';
import type { CheckpointStorage, DataFileWriter } from './checkpointStorage.js';

const MAGIC = Buffer.from('PWSTATE\x01', 'latin1');
const BLOCK_HEADER = 12;
/** A block is written once its text reaches this many UTF-16 units, or it has this many records. */
const BLOCK_CHARS = 1 << 20;
const BLOCK_RECORDS = 16384;
const READ_CHUNK = 1 << 20;

/**
 * Where blocks are encoded before they are copied out at their exact size. Allocating the worst
 * case (3 bytes per UTF-16 unit) for every block counted three times the memory against V8's
 * external-memory limit, which brings on full garbage collections. Shared: encoding is synchronous.
 */
let scratch: Buffer | undefined;

const SET = 0;
const DELETE = 1;
const DROP = 2;

function writeVarint(buffer: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    buffer[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buffer[at++] = value;
  return at;
}

/** A base or changes file being written. Records are kept in order; later ones win on restore. */
export class StateFileWriter {
  private file: DataFileWriter | undefined;
  /** The block's text so far, as one rope: appending costs no copy, encoding it flattens it once. */
  private text = '';
  private chars = 0;
  private count = 0;
  private readonly kinds = new Uint8Array(BLOCK_RECORDS);
  /** Per record the length of its key and of its value: in UTF-16 units, then in bytes once encoded. */
  private readonly lengths = new Uint32Array(2 * BLOCK_RECORDS);

  constructor(
    private readonly storage: CheckpointStorage,
    readonly path: string,
  ) {}

  /** Bytes of the blocks written so far (all of them once `close` is called). */
  get bytes(): number {
    return this.file?.bytes ?? 0;
  }

  /** Each returns a promise when the caller should wait for the disk before adding more. */
  set(key: string, value: string): Promise<void> | undefined {
    return this.add(SET, key, value);
  }

  delete(key: string): Promise<void> | undefined {
    return this.add(DELETE, key, '');
  }

  drop(gte: string, lt: string): Promise<void> | undefined {
    return this.add(DROP, gte, lt);
  }

  private add(kind: number, key: string, value: string): Promise<void> | undefined {
    const i = this.count++;
    this.kinds[i] = kind;
    this.lengths[2 * i] = key.length;
    this.lengths[2 * i + 1] = value.length;
    this.text = this.text + key + value;
    this.chars += key.length + value.length;
    if (this.count < BLOCK_RECORDS && this.chars < BLOCK_CHARS) return undefined;
    return this.writeBlock();
  }

  private writeBlock(): Promise<void> {
    const count = this.count;
    const text = this.text;
    const chars = this.chars;
    const lengths = this.lengths;
    this.text = '';
    this.chars = 0;
    this.count = 0;
    // Room for the worst case: 3 bytes per UTF-16 unit, 1 + 5 + 5 bytes of table per record.
    const room = BLOCK_HEADER + 3 * chars + 11 * count;
    // A block with a huge value gets a buffer of its own rather than keeping one that size for good.
    scratch ??= Buffer.allocUnsafeSlow(BLOCK_HEADER + 3 * BLOCK_CHARS + 11 * BLOCK_RECORDS);
    const block = room <= scratch.length ? scratch : Buffer.allocUnsafeSlow(room);
    let textBytes = block.write(text, BLOCK_HEADER, 'utf8');
    if (textBytes !== chars) {
      // Not all ASCII, so bytes and units differ: encode each string on its own to learn its bytes.
      let at = BLOCK_HEADER;
      let from = 0;
      for (let i = 0; i < 2 * count; i++) {
        const units = lengths[i]!;
        const bytes = block.write(text.slice(from, from + units), at, 'utf8');
        lengths[i] = bytes;
        at += bytes;
        from += units;
      }
      textBytes = at - BLOCK_HEADER;
    }
    const tableStart = BLOCK_HEADER + textBytes;
    const kinds = this.kinds;
    let at = tableStart;
    for (let i = 0; i < count; i++) {
      block[at++] = kinds[i]!;
      // Most lengths take one byte: that case inline, it is most of the table's cost.
      const keyBytes = lengths[2 * i]!;
      if (keyBytes < 0x80) block[at++] = keyBytes;
      else at = writeVarint(block, at, keyBytes);
      const valueBytes = lengths[2 * i + 1]!;
      if (valueBytes < 0x80) block[at++] = valueBytes;
      else at = writeVarint(block, at, valueBytes);
    }
    block.writeUInt32LE(count, 0);
    block.writeUInt32LE(textBytes, 4);
    block.writeUInt32LE(at - tableStart, 8);
    const bytes = block.subarray(0, at);
    return this.opened().writeBytes(block === scratch ? Buffer.from(bytes) : bytes);
  }

  private opened(): DataFileWriter {
    if (this.file === undefined) {
      this.file = this.storage.createDataFile(this.path);
      this.file.writeBytes(MAGIC);
    }
    return this.file;
  }

  /** Writes what is left; `bytes` is final as soon as this returns. */
  close(): Promise<FileRef> {
    if (this.count > 0) this.writeBlock();
    return this.opened().close();
  }

  async discard(): Promise<void> {
    await this.file?.discard();
  }
}

export interface StateFileVisitor {
  /** Each may return a promise, which is waited for before the next record. */
  set(key: string, value: string): Promise<void> | undefined;
  delete(key: string): Promise<void> | undefined;
  drop(gte: string, lt: string): Promise<void> | undefined;
}

/** Reads the records of a state file in order. `name` is how errors call the file. */
export async function readStateFile(path: string, visit: StateFileVisitor, name = path): Promise<void> {
  const damaged = (why: string) => new Error(`state file ${name} ${why}`);
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    let buffer = Buffer.allocUnsafe(READ_CHUNK);
    let start = 0;
    let end = 0;
    let position = 0;
    /** Makes `need` bytes available from `start`; false if the file ends first. */
    const fill = async (need: number): Promise<boolean> => {
      if (end - start >= need) return true;
      if (need - (end - start) > size - position) return false;
      if (need > buffer.length) {
        const bigger = Buffer.allocUnsafe(Math.max(need, 2 * buffer.length));
        buffer.copy(bigger, 0, start, end);
        buffer = bigger;
      } else {
        buffer.copyWithin(0, start, end);
      }
      end -= start;
      start = 0;
      while (end < need) {
        const { bytesRead } = await handle.read(buffer, end, buffer.length - end, position);
        if (bytesRead === 0) return false;
        end += bytesRead;
        position += bytesRead;
      }
      return true;
    };

    if (!(await fill(MAGIC.length)) || buffer.compare(MAGIC, 0, 7, start, start + 7) !== 0) {
      throw damaged('is not a Pipewright state file');
    }
    if (buffer[start + 7] !== MAGIC[7]) {
      throw damaged(`has layout version ${buffer[start + 7]}; this version of Pipewright reads ${MAGIC[7]}`);
    }
    start += MAGIC.length;
    for (;;) {
      if (!(await fill(BLOCK_HEADER))) {
        if (end > start) throw damaged('ends inside a block');
        return;
      }
      const records = buffer.readUInt32LE(start);
      const textBytes = buffer.readUInt32LE(start + 4);
      const tableBytes = buffer.readUInt32LE(start + 8);
      const blockBytes = BLOCK_HEADER + textBytes + tableBytes;
      if (!(await fill(blockBytes))) throw damaged('ends inside a block');
      const block = buffer;
      let s = start + BLOCK_HEADER;
      const textEnd = s + textBytes;
      let t = textEnd;
      const tableEnd = textEnd + tableBytes;
      const varint = (): number => {
        let value = 0;
        for (let shift = 0; shift < 35; shift += 7) {
          if (t >= tableEnd) break;
          const byte = block[t++]!;
          value += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) return value;
        }
        throw damaged('has a block whose table is cut short');
      };
      for (let r = 0; r < records; r++) {
        if (t >= tableEnd) throw damaged('has a block whose table is cut short');
        const kind = block[t++];
        const keyEnd = s + varint();
        const valueEnd = keyEnd + varint();
        if (valueEnd > textEnd) throw damaged('has a record longer than its block');
        const key = block.toString('utf8', s, keyEnd);
        let wait: Promise<void> | undefined;
        if (kind === SET) wait = visit.set(key, block.toString('utf8', keyEnd, valueEnd));
        else if (kind === DELETE) wait = visit.delete(key);
        else if (kind === DROP) wait = visit.drop(key, block.toString('utf8', keyEnd, valueEnd));
        else throw damaged(`has a record of unknown kind ${kind}`);
        if (wait !== undefined) await wait;
        s = valueEnd;
      }
      if (s !== textEnd || t !== tableEnd) throw damaged('has a block whose lengths do not add up');
      start += blockBytes;
    }
  } finally {
    await handle.close();
  }
}
