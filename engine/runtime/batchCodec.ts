// How a batch of channel items crosses to another thread: the envelopes' numbers in a
// Float64Array (transferred, not copied), their values and keys as one JSON text of an array,
// and the values that came with the JSON text they were parsed from (Envelope.text: a
// source.jsonl line no user code touched) as those texts, joined into a second array's text:
// they are not encoded again. Both texts are copied by postMessage as flat bytes and parsed with
// one JSON.parse each, so no array per record is made and taken apart. Per record that cost
// about 40% of encoding and decoding the envelopes as one JSON text of arrays
// (bench/micro/envelopeCodec.mjs). A channel into a sink that writes records as JSON text sends
// each value as its own text, which the consumer writes without decoding it (JsonTextEnvelope).
// Records are JSON values already (records leaving user code are copied as JSON), so the
// encoding loses nothing. Where a record came from repeats from
// record to record: each source is sent once per direction of a link and named by its index after.
// A routed edge's progress mark (into a transaction) sends its skip count among the values.
import type { ChannelItem, Envelope, SkipCount } from './envelope.js';
import { barrier, END_OF_STREAM, envelope, IDLE, watermark } from './envelope.js';
import { JsonTextEnvelope } from './jsonTextEnvelope.js';
import { type RecordSource, recordSourceKey } from './recordSource.js';

/**
 * One batch on the wire. `numbers`, per channel: its id, its item count, then per item a tag and
 * the item's numbers: a record [tag, keyGroup, timestamp (NaN: none), source index (-1: none),
 * position], a barrier [tag, checkpoint id], a watermark [tag, time], an idle mark, an end of
 * stream or a progress mark [tag] (the mark's skip count in `values`). A record's tag says whether it has a key and where its value is: in `values`,
 * in `lines`, or in `texts`, followed then by its text's length.
 */
export interface EncodedBatch {
  readonly numbers: Float64Array<ArrayBuffer>;
  /** JSON: an array of the records' values (those not in `lines`) and keys, in record order. */
  readonly values: string;
  /** JSON: an array of the values sent as the text they were read from; undefined if none. */
  readonly lines: string | undefined;
  /** The JSON texts of the values for consumers that write JSON text, one after another. */
  readonly texts: string;
  /** The sources first seen in this batch, in the order of their indexes. */
  readonly sources: RecordSource[] | undefined;
}

/** A record's tag: bit 0, it has a key; bit 1, its value is in `lines`; bit 2, in `texts`. */
const RECORD = 0;
const KEYED = 1;
const LINE = 2;
const TEXT = 4;
const BARRIER = 8;
const WATERMARK = 9;
const IDLE_MARK = 10;
const END = 11;
const SKIPPED = 12;

/** One direction of a link: remembers which sources the other side already knows. */
export class BatchEncoder {
  private readonly known = new Map<string, number>();
  private lastSource: RecordSource | undefined;
  private lastIndex = -1;
  private fresh: RecordSource[] = [];
  /** Reused from batch to batch; each batch sends a copy of the part it filled. */
  private numbers: Float64Array<ArrayBuffer> = new Float64Array(4096);
  private at = 0;
  private texts = '';

  /**
   * `batches`: per channel id, its items in order, and whether its consumer writes JSON text
   * (false when not given).
   */
  encode(batches: readonly (readonly [number, readonly ChannelItem[], boolean?])[]): EncodedBatch {
    this.at = 0;
    const values: unknown[] = [];
    const lines: string[] = [];
    this.texts = '';
    for (const [channel, items, asText] of batches) {
      // Per item at most 6 numbers.
      this.room(2 + items.length * 6);
      const numbers = this.numbers;
      numbers[this.at++] = channel;
      numbers[this.at++] = items.length;
      for (const item of items) {
        switch (item.type) {
          case 'record':
            this.record(item, values, lines, asText === true);
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
          case 'skipped':
            numbers[this.at++] = SKIPPED;
            values.push(item.skipped);
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
      texts: this.texts,
      sources,
    };
  }

  private room(more: number): void {
    if (this.at + more <= this.numbers.length) return;
    const bigger = new Float64Array(Math.max(this.numbers.length * 2, this.at + more));
    bigger.set(this.numbers.subarray(0, this.at));
    this.numbers = bigger;
  }

  private record(e: Envelope, values: unknown[], lines: string[], asText: boolean): void {
    let tag = RECORD;
    let text: string | undefined;
    if (asText) {
      // What the consumer would write: not a line's text, whose spacing may differ.
      text = JSON.stringify(e.value) ?? 'null';
      this.texts += text;
      tag |= TEXT;
    } else if (e.text !== undefined) {
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
    if (text !== undefined) numbers[at++] = text.length;
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
    const texts = batch.texts;
    let nextValue = 0;
    let nextLine = 0;
    let textAt = 0;
    let count = 0;
    for (let at = 0; at < numbers.length; ) {
      const channel = numbers[at++]!;
      const length = numbers[at++]!;
      const items: ChannelItem[] = new Array(length);
      for (let i = 0; i < length; i++) {
        const tag = numbers[at++]!;
        if (tag < BARRIER) {
          const inText = (tag & TEXT) !== 0;
          const value = inText ? undefined : (tag & LINE) === 0 ? values[nextValue++] : lines![nextLine++];
          const key = (tag & KEYED) === 0 ? undefined : values[nextValue++];
          const keyGroup = numbers[at++]!;
          const timestamp = Number.isNaN(numbers[at]) ? undefined : numbers[at];
          at++;
          const source = numbers[at++]!;
          const position = numbers[at++]!;
          if (inText) {
            const end = textAt + numbers[at++]!;
            const text = texts.slice(textAt, end);
            textAt = end;
            const from = source < 0 ? undefined : this.sources[source];
            items[i] = new JsonTextEnvelope(text, key, keyGroup, timestamp, from, position);
            continue;
          }
          items[i] = envelope(
            value,
            key,
            keyGroup,
            timestamp,
            source < 0 ? undefined : this.sources[source],
            position,
          );
        } else if (tag === BARRIER) items[i] = barrier(numbers[at++]!);
        else if (tag === WATERMARK) items[i] = watermark(numbers[at++]!);
        else if (tag === IDLE_MARK) items[i] = IDLE;
        else if (tag === SKIPPED) items[i] = { type: 'skipped', skipped: values[nextValue++] as SkipCount };
        else items[i] = END_OF_STREAM;
      }
      count += length;
      deliver(channel, items);
    }
    return count;
  }
}
