// How a batch of channel items crosses to another thread: the envelopes' numbers in a
// Float64Array (transferred, not copied), their values and keys as one JSON text of an array,
// and the values that came with the JSON text they were parsed from (Envelope.text: a
// source.jsonl line no user code touched) as those texts, joined into a second array's text:
// they are not encoded again. Both texts are copied by postMessage as flat bytes and parsed with
// one JSON.parse each, so no array per record is made and taken apart. Per record that cost
// about 40% of encoding and decoding the envelopes as one JSON text of arrays
// (bench/micro/envelopeCodec.mjs). Records are JSON values already (records leaving user code
// are copied as JSON), so the encoding loses nothing. Where a record came from repeats from
// record to record: each source is sent once per direction of a link and named by its index after.
import type { ChannelItem, Envelope } from './envelope.js';
import { barrier, END_OF_STREAM, envelope, IDLE, watermark } from './envelope.js';
import { type RecordSource, recordSourceKey } from './recordSource.js';

/**
 * One batch on the wire. `numbers`, per channel: its id, its item count, then per item a tag and
 * the item's numbers: a record [tag, keyGroup, timestamp (NaN: none), source index (-1: none),
 * position], a barrier [tag, checkpoint id], a watermark [tag, time], an idle mark or an end of
 * stream [tag]. A record's tag says whether it has a key and whether its value is in `lines`.
 */
export interface EncodedBatch {
  readonly numbers: Float64Array<ArrayBuffer>;
  /** JSON: an array of the records' values (those not in `lines`) and keys, in record order. */
  readonly values: string;
  /** JSON: an array of the values sent as the text they were read from; undefined if none. */
  readonly lines: string | undefined;
  /** The sources first seen in this batch, in the order of their indexes. */
  readonly sources: RecordSource[] | undefined;
}

/** A record's tag: bit 0, it has a key; bit 1, its value is in `lines`. */
const RECORD = 0;
const KEYED = 1;
const LINE = 2;
const BARRIER = 4;
const WATERMARK = 5;
const IDLE_MARK = 6;
const END = 7;

/** One direction of a link: remembers which sources the other side already knows. */
export class BatchEncoder {
  private readonly known = new Map<string, number>();
  private lastSource: RecordSource | undefined;
  private lastIndex = -1;
  private fresh: RecordSource[] = [];
  /** Reused from batch to batch; each batch sends a copy of the part it filled. */
  private numbers: Float64Array<ArrayBuffer> = new Float64Array(4096);
  private at = 0;

  /** `batches`: per channel id, its items in order. */
  encode(batches: readonly (readonly [number, readonly ChannelItem[]])[]): EncodedBatch {
    this.at = 0;
    const values: unknown[] = [];
    const lines: string[] = [];
    for (const [channel, items] of batches) {
      // Per item at most 5 numbers.
      this.room(2 + items.length * 5);
      const numbers = this.numbers;
      numbers[this.at++] = channel;
      numbers[this.at++] = items.length;
      for (const item of items) {
        switch (item.type) {
          case 'record':
            this.record(item, values, lines);
            break;
          case 'barrier':
            numbers[this.at++] = BARRIER;
            numbers[this.at++] = item.checkpointId;
            break;
          case 'watermark':
            numbers[this.at++] = WATERMARK;
            numbers[this.at++] = item.timestamp;
            break;
          case 'idle':
            numbers[this.at++] = IDLE_MARK;
            break;
          case 'end':
            numbers[this.at++] = END;
            break;
        }
      }
    }
    const sources = this.fresh.length > 0 ? this.fresh : undefined;
    this.fresh = [];
    return {
      numbers: this.numbers.slice(0, this.at),
      values: JSON.stringify(values),
      // Each line is one whole JSON value (its source parsed it): joined, they are an array's.
      lines: lines.length > 0 ? `[${lines.join(',')}]` : undefined,
      sources,
    };
  }

  private room(more: number): void {
    if (this.at + more <= this.numbers.length) return;
    const bigger = new Float64Array(Math.max(this.numbers.length * 2, this.at + more));
    bigger.set(this.numbers.subarray(0, this.at));
    this.numbers = bigger;
  }

  private record(e: Envelope, values: unknown[], lines: string[]): void {
    let tag = RECORD;
    if (e.text !== undefined) {
      lines.push(e.text);
      tag |= LINE;
    } else values.push(e.value);
    if (e.key !== undefined) {
      values.push(e.key);
      tag |= KEYED;
    }
    const numbers = this.numbers;
    let at = this.at;
    numbers[at++] = tag;
    numbers[at++] = e.keyGroup;
    numbers[at++] = e.timestamp ?? Number.NaN;
    numbers[at++] = e.source === undefined ? -1 : this.sourceIndex(e.source);
    numbers[at++] = e.position;
    this.at = at;
  }

  private sourceIndex(source: RecordSource): number {
    if (source === this.lastSource) return this.lastIndex;
    const key = recordSourceKey(source);
    let index = this.known.get(key);
    if (index === undefined) {
      index = this.known.size;
      this.known.set(key, index);
      this.fresh.push(source);
    }
    this.lastSource = source;
    this.lastIndex = index;
    return index;
  }
}

/** The other direction's reading side. */
export class BatchDecoder {
  private readonly sources: RecordSource[] = [];

  /** Calls `deliver` once per channel of the batch, in the order they were encoded. */
  decode(batch: EncodedBatch, deliver: (channel: number, items: ChannelItem[]) => void): number {
    const fresh = batch.sources;
    if (fresh !== undefined) for (let i = 0; i < fresh.length; i++) this.sources.push(fresh[i]!);
    const numbers = batch.numbers;
    const values = JSON.parse(batch.values) as unknown[];
    const lines = batch.lines === undefined ? undefined : (JSON.parse(batch.lines) as unknown[]);
    let nextValue = 0;
    let nextLine = 0;
    let count = 0;
    for (let at = 0; at < numbers.length; ) {
      const channel = numbers[at++]!;
      const length = numbers[at++]!;
      const items: ChannelItem[] = new Array(length);
      for (let i = 0; i < length; i++) {
        const tag = numbers[at++]!;
        if (tag < BARRIER) {
          const value = (tag & LINE) === 0 ? values[nextValue++] : lines![nextLine++];
          const key = (tag & KEYED) === 0 ? undefined : values[nextValue++];
          const keyGroup = numbers[at++]!;
          const timestamp = numbers[at++]!;
          const source = numbers[at++]!;
          const position = numbers[at++]!;
          items[i] = envelope(
            value,
            key,
            keyGroup,
            Number.isNaN(timestamp) ? undefined : timestamp,
            source < 0 ? undefined : this.sources[source],
            position,
          );
        } else if (tag === BARRIER) items[i] = barrier(numbers[at++]!);
        else if (tag === WATERMARK) items[i] = watermark(numbers[at++]!);
        else if (tag === IDLE_MARK) items[i] = IDLE;
        else items[i] = END_OF_STREAM;
      }
      count += length;
      deliver(channel, items);
    }
    return count;
  }
}
