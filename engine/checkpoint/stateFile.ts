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
import type { MaybePromise } from '../state/maybePromise.js';
import type { FileRef } from './checkpointMetadata.js';
import type { CheckpointStorage, DataFileWriter } from './checkpointStorage.js';

const MAGIC = Buffer.from('PWSTATE\x01', 'latin1');
const BLOCK_HEADER = 12;
/** A block is written once its text reaches this many UTF-16 units, or it has this many records. */
const BLOCK_CHARS = 1 << 20;
const BLOCK_RECORDS = 16384;
/** A record's kind and its two varint lengths take at most this many bytes of table. */
const RECORD_TABLE_MAX = 11;
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

// Bytes are stored through DataViews, never as `buffer[i] = x`: after SES lockdown (the thread
// that runs a job is locked down) an indexed store into a typed array or a Buffer leaves V8's fast
// path and costs ~60-75 ns, where a DataView setter stays at ~4 ns. Six such stores a record were
// most of what a changes file cost. (Indexed loads keep their fast path.)

function viewOf(buffer: Buffer): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
}

/** Writes `value` as an unsigned LEB128 varint at `at`; returns the offset after it. */
function writeVarint(view: DataView, at: number, value: number): number {
  while (value >= 0x80) {
    view.setUint8(at++, (value & 0x7f) | 0x80);
    value >>>= 7;
  }
  view.setUint8(at++, value);
  return at;
}

/** The value of the varint at `at` in a table this module wrote (so no bounds to check). */
function varintAt(table: Buffer, at: number): number {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = table[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
  }
}

function varintEnd(table: Buffer, at: number): number {
  while (table[at++]! >= 0x80);
  return at;
}

/** A base or changes file being written. Records are kept in order; later ones win on restore. */
export class StateFileWriter {
  private file: DataFileWriter | undefined;
  /** The block's text so far, as one rope: appending costs no copy, encoding it flattens it once. */
  private text = '';
  private chars = 0;
  private count = 0;
  /**
   * The block's table, written as records come, with lengths in UTF-16 units: in a block of ASCII
   * text (the usual one) they are its byte lengths, and the table is copied into the block as it is.
   */
  private readonly table = Buffer.allocUnsafeSlow(RECORD_TABLE_MAX * BLOCK_RECORDS);
  private readonly tableView = viewOf(this.table);
  private tableBytes = 0;

  constructor(
    private readonly storage: CheckpointStorage,
    readonly path: string,
  ) {}

  /** Bytes of the blocks written so far (all of them once `close` is called). */
  get bytes(): number {
    return this.file?.bytes ?? 0;
  }

  /** Each returns a promise when the caller should wait for the disk before adding more. */
  set(key: string, value: string): MaybePromise {
    return this.add(SET, key, value);
  }

  delete(key: string): MaybePromise {
    return this.add(DELETE, key, '');
  }

  drop(gte: string, lt: string): MaybePromise {
    return this.add(DROP, gte, lt);
  }

  /**
   * Writes the records added so far as a block now. Called at the end of each batch: a block's text
   * is a rope of its records' strings, and one kept across the records' own allocations would be
   * copied by every scavenge and then promoted.
   */
  endBlock(): MaybePromise {
    return this.count > 0 ? this.writeBlock() : undefined;
  }

  private add(kind: number, key: string, value: string): MaybePromise {
    const view = this.tableView;
    let at = this.tableBytes;
    view.setUint8(at++, kind);
    // Most lengths take one byte: that case inline.
    const keyUnits = key.length;
    if (keyUnits < 0x80) view.setUint8(at++, keyUnits);
    else at = writeVarint(view, at, keyUnits);
    const valueUnits = value.length;
    if (valueUnits < 0x80) view.setUint8(at++, valueUnits);
    else at = writeVarint(view, at, valueUnits);
    this.tableBytes = at;
    this.text = this.text + key + value;
    this.chars += keyUnits + valueUnits;
    if (++this.count < BLOCK_RECORDS && this.chars < BLOCK_CHARS) return undefined;
    return this.writeBlock();
  }

  private writeBlock(): Promise<void> {
    const count = this.count;
    const text = this.text;
    const chars = this.chars;
    const tableBytes = this.tableBytes;
    this.text = '';
    this.chars = 0;
    this.count = 0;
    this.tableBytes = 0;
    // Room for the worst case: 3 bytes per UTF-16 unit, and a table whose lengths grew in bytes.
    const room = BLOCK_HEADER + 3 * chars + RECORD_TABLE_MAX * count;
    // A block with a huge value gets a buffer of its own rather than keeping one that size for good.
    scratch ??= Buffer.allocUnsafeSlow(BLOCK_HEADER + 3 * BLOCK_CHARS + RECORD_TABLE_MAX * BLOCK_RECORDS);
    const block = room <= scratch.length ? scratch : Buffer.allocUnsafeSlow(room);
    const view = viewOf(block);
    let textBytes = block.write(text, BLOCK_HEADER, 'utf8');
    let end: number;
    if (textBytes === chars) {
      end = BLOCK_HEADER + textBytes + this.table.copy(block, BLOCK_HEADER + textBytes, 0, tableBytes);
    } else {
      textBytes = this.encodeEach(text, count, block);
      end = this.writeByteTable(count, view, BLOCK_HEADER + textBytes);
    }
    view.setUint32(0, count, true);
    view.setUint32(4, textBytes, true);
    view.setUint32(8, end - BLOCK_HEADER - textBytes, true);
    const bytes = block.subarray(0, end);
    return this.opened().writeBytes(block === scratch ? Buffer.from(bytes) : bytes);
  }

  /** The byte lengths of the keys and values of a block encodeEach encoded, in record order. */
  private readonly byteLengths: number[] = [];

  /**
   * Not all ASCII, so bytes and units differ: encodes each string on its own (and a lone surrogate
   * at the end of one cannot pair with the start of the next) to learn its bytes. Returns the
   * text's bytes.
   */
  private encodeEach(text: string, count: number, block: Buffer): number {
    const table = this.table;
    const lengths = this.byteLengths;
    lengths.length = 0;
    let at = BLOCK_HEADER;
    let from = 0;
    let t = 0;
    for (let i = 0; i < 2 * count; i++) {
      if (i % 2 === 0) t++; // the record's kind
      const units = varintAt(table, t);
      t = varintEnd(table, t);
      const bytes = block.write(text.slice(from, from + units), at, 'utf8');
      lengths.push(bytes);
      at += bytes;
      from += units;
    }
    return at - BLOCK_HEADER;
  }

  /** Writes the table with the byte lengths encodeEach found, from `at`; returns where it ends. */
  private writeByteTable(count: number, view: DataView, at: number): number {
    const table = this.table;
    const lengths = this.byteLengths;
    let t = 0;
    for (let i = 0; i < count; i++) {
      view.setUint8(at++, table[t]!);
      t = varintEnd(table, varintEnd(table, t + 1));
      at = writeVarint(view, at, lengths[2 * i]!);
      at = writeVarint(view, at, lengths[2 * i + 1]!);
    }
    return at;
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
  set(key: string, value: string): MaybePromise;
  delete(key: string): MaybePromise;
  drop(gte: string, lt: string): MaybePromise;
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
        let wait: MaybePromise;
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
