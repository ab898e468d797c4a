// The NEXMark stream as a pure function of the event number: its proportions, ids, times and
// picks follow Flink's nexmark generator, and a seed decides everything else.
import { describe, expect, it } from 'vitest';
import { lastAuctionId, lastPersonId } from './entityIds.js';
import { eventTimestamp, eventType } from './eventSchedule.js';
import { DEFAULT_BASE_TIME, nexmarkConfig } from './nexmarkConfig.js';
import { nexmarkEvent } from './nexmarkEvent.js';
import type { AuctionRecord, BidRecord, NexmarkRecord, PersonRecord } from './nexmarkRecords.js';

const events = (count: number, settings = {}): NexmarkRecord[] => {
  const config = nexmarkConfig(settings);
  return Array.from({ length: count }, (_, n) => nexmarkEvent(config, n));
};
const counts = (list: NexmarkRecord[]) => {
  const c = { person: 0, auction: 0, bid: 0 };
  for (const e of list) c[e.type]++;
  return c;
};

describe('the NEXMark stream', () => {
  it('is people, auctions and bids 1:3:46 in every 50 events, in that order', () => {
    const list = events(5000);
    expect(counts(list)).toEqual({ person: 100, auction: 300, bid: 4600 });
    expect(list.slice(0, 5).map((e) => e.type)).toEqual(['person', 'auction', 'auction', 'auction', 'bid']);
    expect(list.slice(49, 51).map((e) => e.type)).toEqual(['bid', 'person']);
    expect(counts(events(600, { personProportion: 2, auctionProportion: 1, bidProportion: 3 }))).toEqual({
      person: 200,
      auction: 100,
      bid: 300,
    });
  });

  it('numbers people and auctions from 1000 in the order they are made', () => {
    const list = events(5000);
    const people = list.filter((e): e is PersonRecord => e.type === 'person').map((p) => p.id);
    const auctions = list.filter((e): e is AuctionRecord => e.type === 'auction').map((a) => a.id);
    expect(people).toEqual(Array.from({ length: 100 }, (_, i) => 1000 + i));
    expect(auctions).toEqual(Array.from({ length: 300 }, (_, i) => 1000 + i));
    const config = nexmarkConfig();
    expect([lastPersonId(config, 0), lastPersonId(config, 49), lastPersonId(config, 50)]).toEqual([0, 0, 1]);
    expect([lastAuctionId(config, 1), lastAuctionId(config, 4), lastAuctionId(config, 50)]).toEqual([
      0, 2, 2,
    ]);
  });

  it('refers in bids and auctions only to people and auctions made or about to be', () => {
    const config = nexmarkConfig();
    const wrong: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      const e = nexmarkEvent(config, n);
      const people = lastPersonId(config, n) + 1;
      const newest = lastAuctionId(config, n);
      const activePerson = (id: number) =>
        id >= 1000 + Math.max(0, people - config.numActivePeople) && id < 1000 + people + 10;
      if (e.type === 'bid') {
        if (
          e.auction < 1000 + Math.max(0, newest - config.numInFlightAuctions) ||
          e.auction >= 1000 + newest + 11
        )
          wrong.push(`event ${n}: bid on auction ${e.auction}`);
        if (!activePerson(e.bidder)) wrong.push(`event ${n}: bid by ${e.bidder}`);
      }
      if (e.type === 'auction') {
        if (!activePerson(e.seller)) wrong.push(`event ${n}: auction by ${e.seller}`);
        if (e.category < 10 || e.category >= 15) wrong.push(`event ${n}: category ${e.category}`);
        if (e.expires <= e.dateTime || e.reserve <= e.initialBid)
          wrong.push(`event ${n}: ${JSON.stringify(e)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('puts most bids on hot auctions by hot bidders, as the hot ratios say', () => {
    const bids = events(50_000).filter((e): e is BidRecord => e.type === 'bid');
    const hotAuction = bids.filter((b) => (b.auction - 1000) % 100 === 0).length / bids.length;
    const hotBidder = bids.filter((b) => (b.bidder - 1000) % 100 === 1).length / bids.length;
    // 1 - 1/2 and 1 - 1/4, plus the few random picks that land on a hot id.
    expect(hotAuction).toBeGreaterThan(0.48);
    expect(hotAuction).toBeLessThan(0.56);
    expect(hotBidder).toBeGreaterThan(0.73);
    expect(hotBidder).toBeLessThan(0.78);
  });

  it('times event n at baseTime + n / eventsPerSec, never going down', () => {
    const config = nexmarkConfig();
    expect(eventTimestamp(config, 0)).toBe(DEFAULT_BASE_TIME);
    expect(eventTimestamp(config, 9)).toBe(DEFAULT_BASE_TIME);
    expect(eventTimestamp(config, 10)).toBe(DEFAULT_BASE_TIME + 1);
    expect(eventTimestamp(config, 10_000)).toBe(DEFAULT_BASE_TIME + 1000);
    const slow = nexmarkConfig({ eventsPerSec: 3, baseTime: 0 });
    expect([0, 1, 2, 3, 4].map((n) => eventTimestamp(slow, n))).toEqual([0, 333, 666, 1000, 1333]);
    const list = events(3000, { eventsPerSec: 700 });
    for (let i = 1; i < list.length; i++)
      expect(list[i]!.dateTime).toBeGreaterThanOrEqual(list[i - 1]!.dateTime);
    expect(eventType(config, 4)).toBe('bid');
  });

  it('is the same for the same seed and another for another seed', () => {
    const a = events(500, { seed: 7 });
    expect(events(500, { seed: 7 })).toEqual(a);
    const b = events(500, { seed: 8 });
    expect(b).not.toEqual(a);
    // Which entity, its id and its time follow from the number alone.
    expect(b.map((e) => [e.type, e.dateTime])).toEqual(a.map((e) => [e.type, e.dateTime]));
    // Event n does not depend on the events made before it.
    const config = nexmarkConfig({ seed: 7 });
    expect(nexmarkEvent(config, 321)).toEqual(a[321]);
  });

  it('has Flink’s fields and plain JSON values, padded to about the average sizes', () => {
    const list = events(5000);
    const [person, auction, bid] = (['person', 'auction', 'bid'] as const).map((t) =>
      list.find((e) => e.type === t),
    );
    expect(Object.keys(person!)).toEqual([
      'type',
      'id',
      'name',
      'emailAddress',
      'creditCard',
      'city',
      'state',
      'dateTime',
      'extra',
    ]);
    expect(Object.keys(auction!)).toEqual([
      'type',
      'id',
      'itemName',
      'description',
      'initialBid',
      'reserve',
      'dateTime',
      'expires',
      'seller',
      'category',
      'extra',
    ]);
    expect(Object.keys(bid!)).toEqual([
      'type',
      'auction',
      'bidder',
      'price',
      'channel',
      'url',
      'dateTime',
      'extra',
    ]);
    expect(JSON.parse(JSON.stringify(list))).toEqual(list);
    expect((person as PersonRecord).creditCard).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
    expect((person as PersonRecord).emailAddress).toMatch(/^.+@.+\.com$/);
    const bids = list.filter((e): e is BidRecord => e.type === 'bid');
    const averageBid = bids.reduce((sum, b) => sum + 32 + b.extra.length, 0) / bids.length;
    expect(averageBid).toBeGreaterThan(90);
    expect(averageBid).toBeLessThan(110);
    expect(new Set(bids.map((b) => b.channel)).has('Google')).toBe(true);
    for (const b of bids) expect(b.price).toBeGreaterThanOrEqual(100);
  });
});
