// A partition's part of a fetch response (read_committed) as the records a reader emits: control
// batches (transaction markers) dropped, and the batches of aborted transactions dropped as the
// Java consumer does (the response lists each aborted transaction's producer and first offset;
// its batches are skipped from there up to its abort marker). Batches may start before the offset
// asked for: records before it were read already.
import type { FetchResponsePartition } from './kafkaSourceBroker.js';

const IS_TRANSACTIONAL = 0x10;
const IS_CONTROL = 0x20;
const LOG_APPEND_TIME = 0x08;

export interface FetchedRecord {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly (readonly [Buffer | null, Buffer | null])[];
}

export interface FetchedChunk {
  readonly records: FetchedRecord[];
  /** The offset after the last batch of the response: where the next fetch starts. */
  readonly nextOffset: number;
}

/** An abort marker's key: version (int16) then type (int16), 0 = abort, 1 = commit. */
function isAbortMarker(key: Buffer | null): boolean {
  return key !== null && key.length >= 4 && key.readInt16BE(2) === 0;
}

export function fetchedRecords(response: FetchResponsePartition, from: number): FetchedChunk {
  const records: FetchedRecord[] = [];
  let nextOffset = from;
  const aborted = [...response.abortedTransactions].sort((a, b) =>
    a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
  );
  const abortedProducers = new Set<bigint>();
  for (const batch of response.records ?? []) {
    const first = Number(batch.firstOffset);
    const last = first + batch.lastOffsetDelta;
    if (last < from) continue;
    while (aborted.length > 0 && Number(aborted[0]!.firstOffset) <= last) {
      abortedProducers.add(aborted.shift()!.producerId);
    }
    nextOffset = Math.max(nextOffset, last + 1);
    const transactional = (batch.attributes & IS_TRANSACTIONAL) !== 0;
    if ((batch.attributes & IS_CONTROL) !== 0) {
      if (transactional && isAbortMarker(batch.records[0]?.key ?? null))
        abortedProducers.delete(batch.producerId);
      continue;
    }
    if (transactional && abortedProducers.has(batch.producerId)) continue;
    const appendTime = (batch.attributes & LOG_APPEND_TIME) !== 0;
    const firstTimestamp = Number(batch.firstTimestamp);
    for (const record of batch.records) {
      const offset = first + record.offsetDelta;
      if (offset < from) continue;
      records.push({
        offset,
        timestamp: appendTime ? Number(batch.maxTimestamp) : firstTimestamp + Number(record.timestampDelta),
        key: record.key,
        value: record.value,
        headers: record.headers,
      });
    }
  }
  return { records, nextOffset };
}
