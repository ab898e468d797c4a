// How a batch of channel items crosses to another thread: as one string of compact JSON, which
// postMessage copies as flat bytes (bench/micro/threadTransport.mjs measures this against
// structured clone of the items, UTF-8 bytes in a transferred buffer and a shared ring: turning
// the text into bytes costs more than the copy it saves). The batch is compact JSON: a record is an array, a barrier its checkpoint id, an end of
// stream the string "end". Records are JSON values already (records leaving user code are
// copied as JSON), so the encoding loses nothing. A watermark is [time] (a one-element array: a
// record has five or six), its time null for +Infinity; an idle mark is the string "idle". Where a record came from repeats from record
// to record: each source is sent once per direction of a link and named by its index after.
import type { ChannelItem, Envelope, SkipCount } from './envelope.js';
import { END_OF_STREAM, envelope, IDLE, watermark } from './envelope.js';
import { type RecordSource, recordSourceKey } from './recordSource.js';

/** [value, keyGroup, timestamp or null, source index or -1, position, key?] */
type EncodedRecord = [unknown, number, number | null, number, number, unknown?];
/** A progress mark of a routed edge is the one object: `{ s: SkipCount }`. */
type EncodedItem = EncodedRecord | [number | null] | number | 'end' | 'idle' | { s: SkipCount };
/** The sources first seen in this batch, then every channel's items: [channel, ...items]. */
type EncodedBatch = [RecordSource[], ...[number, ...EncodedItem[]][]];

/** One direction of a link: remembers which sources the other side already knows. */
export class BatchEncoder {
  private readonly known = new Map<string, number>();
  private lastSource: RecordSource | undefined;
  private lastIndex = -1;
  private fresh: RecordSource[] = [];

  /** `batches`: per channel id, its items in order. */
  encode(batches: readonly (readonly [number, readonly ChannelItem[]])[]): string {
    const encoded: unknown[] = [this.fresh];
    for (const [channel, items] of batches) {
      const row: unknown[] = [channel];
      for (const item of items) row.push(this.item(item));
      encoded.push(row);
    }
    this.fresh = [];
    return JSON.stringify(encoded);
  }

  private item(item: ChannelItem): EncodedItem {
    switch (item.type) {
      case 'record':
        return this.record(item);
      case 'barrier':
        return item.checkpointId;
      case 'watermark':
        // JSON has no Infinity; -Infinity is never sent (it is where every channel starts).
        return [item.timestamp === Number.POSITIVE_INFINITY ? null : item.timestamp];
      case 'idle':
        return 'idle';
      case 'end':
        return 'end';
      case 'skipped':
        return { s: item.skipped };
    }
  }

  private record(e: Envelope): EncodedRecord {
    const source = e.source === undefined ? -1 : this.sourceIndex(e.source);
    const encoded: EncodedRecord = [e.value, e.keyGroup, e.timestamp ?? null, source, e.position];
    if (e.key !== undefined) encoded.push(e.key);
    return encoded;
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
  decode(text: string, deliver: (channel: number, items: ChannelItem[]) => void): number {
    // Indexes, not destructuring: after SES's lockdown an array pattern goes through the
    // iterator protocol's tamed accessors, which cost 3% of a thread's time in a profile.
    const batch = JSON.parse(text) as EncodedBatch;
    const fresh = batch[0];
    for (let i = 0; i < fresh.length; i++) this.sources.push(fresh[i]!);
    let count = 0;
    for (let r = 1; r < batch.length; r++) {
      const row = batch[r] as unknown[];
      const items: ChannelItem[] = new Array(row.length - 1);
      for (let i = 1; i < row.length; i++) items[i - 1] = this.item(row[i] as EncodedItem);
      count += items.length;
      deliver(row[0] as number, items);
    }
    return count;
  }

  private item(item: EncodedItem): ChannelItem {
    if (item === 'end') return END_OF_STREAM;
    if (item === 'idle') return IDLE;
    if (typeof item === 'number') return { type: 'barrier', checkpointId: item };
    if (!Array.isArray(item)) return { type: 'skipped', skipped: item.s };
    if (item.length === 1) return watermark(item[0] ?? Number.POSITIVE_INFINITY);
    const record = item as EncodedRecord;
    const source = record[3];
    return envelope(
      record[0],
      record[5],
      record[1],
      record[2] ?? undefined,
      source < 0 ? undefined : this.sources[source],
      record[4],
    );
  }
}
