// fetchedRecords: what a read_committed reader keeps of a fetch response. The client's own filter
// keeps an aborted transaction's records when its abort marker is not in the same response, and
// knows one aborted range per producer; the reader filters as the Java consumer does.
import { describe, expect, it } from 'vitest';
import { fetchedRecords } from '../../engine/operators/kafka/source/fetchedRecords.js';
import type { FetchResponsePartition } from '../../engine/operators/kafka/source/kafkaSourceBroker.js';

const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;
const APPEND_TIME = 0x08;

type Batch = NonNullable<FetchResponsePartition['records']>[number];

function batch(
  first: number,
  values: string[],
  options: { producer?: bigint; attributes?: number } = {},
): Batch {
  return {
    firstOffset: BigInt(first),
    length: 0,
    partitionLeaderEpoch: 0,
    magic: 2,
    crc: 0,
    attributes: options.attributes ?? 0,
    lastOffsetDelta: values.length - 1,
    firstTimestamp: 1000n,
    maxTimestamp: 5000n,
    producerId: options.producer ?? -1n,
    producerEpoch: 0,
    firstSequence: 0,
    records: values.map((value, i) => ({
      length: 0,
      attributes: 0,
      timestampDelta: BigInt(i),
      offsetDelta: i,
      key: null,
      value: Buffer.from(value),
      headers: [],
    })),
  };
}

/** A transaction marker: key version 0, type 0 (abort) or 1 (commit). */
function marker(offset: number, producer: bigint, commit: boolean): Batch {
  const key = Buffer.alloc(4);
  key.writeInt16BE(commit ? 1 : 0, 2);
  const b = batch(offset, ['m'], { producer, attributes: TRANSACTIONAL | CONTROL });
  return { ...b, records: [{ ...b.records[0]!, key, value: null }] };
}

function response(
  records: Batch[],
  aborted: { producerId: bigint; firstOffset: bigint }[] = [],
): FetchResponsePartition {
  return {
    partitionIndex: 0,
    errorCode: 0,
    highWatermark: 0n,
    lastStableOffset: 0n,
    logStartOffset: 0n,
    abortedTransactions: aborted,
    preferredReadReplica: -1,
    records,
  };
}

const values = (chunk: ReturnType<typeof fetchedRecords>) => chunk.records.map((r) => r.value!.toString());

describe('fetchedRecords', () => {
  it('drops an aborted transaction whose marker is not in this response', () => {
    const chunk = fetchedRecords(
      response(
        [batch(0, ['a', 'b']), batch(2, ['x', 'y'], { producer: 7n, attributes: TRANSACTIONAL })],
        [{ producerId: 7n, firstOffset: 2n }],
      ),
      0,
    );
    expect(values(chunk)).toEqual(['a', 'b']);
    expect(chunk.nextOffset).toBe(4);
  });

  it("keeps a producer's committed transaction between two of its aborted ones", () => {
    const tx = { producer: 7n, attributes: TRANSACTIONAL };
    const chunk = fetchedRecords(
      response(
        [
          batch(0, ['a1', 'a2'], tx),
          marker(2, 7n, false),
          batch(3, ['c1', 'c2'], tx),
          marker(5, 7n, true),
          batch(6, ['b1'], tx),
          marker(7, 7n, false),
          batch(8, ['plain']),
        ],
        [
          { producerId: 7n, firstOffset: 6n },
          { producerId: 7n, firstOffset: 0n },
        ],
      ),
      0,
    );
    expect(values(chunk)).toEqual(['c1', 'c2', 'plain']);
    expect(chunk.nextOffset).toBe(9);
  });

  it('skips records before the offset asked for, and a trailing marker moves the next offset past it', () => {
    const chunk = fetchedRecords(
      response([
        batch(0, ['r0', 'r1', 'r2'], { producer: 3n, attributes: TRANSACTIONAL }),
        marker(3, 3n, true),
      ]),
      1,
    );
    expect(values(chunk)).toEqual(['r1', 'r2']);
    expect(chunk.records.map((r) => r.offset)).toEqual([1, 2]);
    expect(chunk.nextOffset).toBe(4);
  });

  it("gives each record its create time, or the batch's append time", () => {
    expect(fetchedRecords(response([batch(0, ['a', 'b'])]), 0).records.map((r) => r.timestamp)).toEqual([
      1000, 1001,
    ]);
    expect(
      fetchedRecords(response([batch(0, ['a', 'b'], { attributes: APPEND_TIME })]), 0).records.map(
        (r) => r.timestamp,
      ),
    ).toEqual([5000, 5000]);
  });
});
