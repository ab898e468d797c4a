// NEXMark's queries in plain JavaScript over an array of events: what each query's SQL (see
// assets/nexmark/README.md) gives when run over the whole input at once. The tests compare the
// jobs' outputs with these.
import type {
  AuctionRecord,
  BidRecord,
  NexmarkRecord,
  PersonRecord,
} from '../../engine/operators/nexmark/nexmarkRecords.js';

const bidsOf = (events: readonly NexmarkRecord[]) => events.filter((e): e is BidRecord => e.type === 'bid');
const auctionsOf = (events: readonly NexmarkRecord[]) =>
  events.filter((e): e is AuctionRecord => e.type === 'auction');
const peopleOf = (events: readonly NexmarkRecord[]) =>
  events.filter((e): e is PersonRecord => e.type === 'person');

/** Epoch-aligned start of the window of `size` ms that holds `time`. */
const windowStart = (time: number, size: number) => time - (((time % size) + size) % size);

export function q0(events: readonly NexmarkRecord[]) {
  return bidsOf(events).map(({ auction, bidder, price, dateTime, extra }) => ({
    auction,
    bidder,
    price,
    dateTime,
    extra,
  }));
}

export function q1(events: readonly NexmarkRecord[]) {
  return bidsOf(events).map(({ auction, bidder, price, dateTime, extra }) => ({
    auction,
    bidder,
    price: Math.round(price * 908) / 1000,
    dateTime,
    extra,
  }));
}

export function q2(events: readonly NexmarkRecord[]) {
  return bidsOf(events)
    .filter((b) => b.auction % 123 === 0)
    .map(({ auction, price }) => ({ auction, price }));
}

export function q3(events: readonly NexmarkRecord[]) {
  const sellers = new Map(
    peopleOf(events)
      .filter((p) => p.state === 'OR' || p.state === 'ID' || p.state === 'CA')
      .map((p) => [p.id, p]),
  );
  return auctionsOf(events).flatMap((a) => {
    const p = sellers.get(a.seller);
    return a.category === 10 && p !== undefined
      ? [{ name: p.name, city: p.city, state: p.state, id: a.id }]
      : [];
  });
}

/** Each category's average winning bid, truncated as SQL's AVG of a BIGINT: { id, final } per category. */
export function q4(events: readonly NexmarkRecord[]) {
  const bids = bidsOf(events);
  const totals = new Map<number, { sum: number; count: number }>();
  for (const a of auctionsOf(events)) {
    let max: number | undefined;
    for (const b of bids)
      if (
        b.auction === a.id &&
        b.dateTime >= a.dateTime &&
        b.dateTime <= a.expires &&
        (max === undefined || b.price > max)
      )
        max = b.price;
    if (max === undefined) continue;
    const total = totals.get(a.category) ?? { sum: 0, count: 0 };
    totals.set(a.category, { sum: total.sum + max, count: total.count + 1 });
  }
  return [...totals].map(([id, { sum, count }]) => ({ id, final: Math.trunc(sum / count) }));
}

export function q5(events: readonly NexmarkRecord[], sizeMs = 10_000, slideMs = 2000) {
  const counts = new Map<number, Map<number, number>>();
  for (const b of bidsOf(events)) {
    for (let start = windowStart(b.dateTime, slideMs); start > b.dateTime - sizeMs; start -= slideMs) {
      const window = counts.get(start) ?? new Map<number, number>();
      window.set(b.auction, (window.get(b.auction) ?? 0) + 1);
      counts.set(start, window);
    }
  }
  return [...counts.values()].flatMap((window) => {
    const most = Math.max(...window.values());
    return [...window].filter(([, num]) => num === most).map(([auction, num]) => ({ auction, num }));
  });
}

export function q7(events: readonly NexmarkRecord[], sizeMs = 10_000) {
  const bids = bidsOf(events);
  const highest = new Map<number, number>();
  for (const b of bids) {
    const end = windowStart(b.dateTime, sizeMs) + sizeMs;
    highest.set(end, Math.max(highest.get(end) ?? Number.NEGATIVE_INFINITY, b.price));
  }
  return [...highest].flatMap(([end, price]) =>
    bids
      .filter((b) => b.price === price && b.dateTime >= end - sizeMs && b.dateTime <= end)
      .map(({ auction, bidder, dateTime, extra }) => ({ auction, bidder, price, dateTime, extra })),
  );
}

export function q8(events: readonly NexmarkRecord[], sizeMs = 10_000) {
  const sold = new Set(auctionsOf(events).map((a) => `${a.seller}@${windowStart(a.dateTime, sizeMs)}`));
  return peopleOf(events)
    .map((p) => ({ id: p.id, name: p.name, stime: windowStart(p.dateTime, sizeMs) }))
    .filter((p) => sold.has(`${p.id}@${p.stime}`));
}

/** Sessions as Flink merges them: a bid within gapMs of a session's last bid (inclusive) joins it. */
export function q11(events: readonly NexmarkRecord[], gapMs = 10_000) {
  const times = new Map<number, number[]>();
  for (const b of bidsOf(events)) times.set(b.bidder, [...(times.get(b.bidder) ?? []), b.dateTime]);
  const sessions: { bidder: number; bid_count: number; starttime: number; endtime: number }[] = [];
  for (const [bidder, list] of times) {
    list.sort((x, y) => x - y);
    let session: (typeof sessions)[number] | undefined;
    for (const t of list) {
      if (session === undefined || t > session.endtime) {
        session = { bidder, bid_count: 0, starttime: t, endtime: t + gapMs };
        sessions.push(session);
      }
      session.bid_count++;
      session.endtime = Math.max(session.endtime, t + gapMs);
    }
  }
  return sessions;
}
