// What shapes a NEXMark stream: the knobs of Flink's nexmark generator (GeneratorConfig and
// NexmarkConfiguration) that decide which events come and what is in them, with Flink's
// defaults. Pure; the source kind's params map onto it.

/** Ids start above zero, as in NEXMark, so that small runs still find matches in the queries. */
export const FIRST_PERSON_ID = 1000;
export const FIRST_AUCTION_ID = 1000;
export const FIRST_CATEGORY_ID = 10;

/** Event time of event 0 when none is given: a fixed instant, so every run has the same times. */
export const DEFAULT_BASE_TIME = Date.UTC(2024, 0, 1);

export interface NexmarkConfig {
  readonly seed: number;
  /** Epoch ms of event 0. */
  readonly baseTime: number;
  /** Event time between two successive events, in microseconds (1e6 / events per second). */
  readonly interEventDelayUs: number;
  readonly personProportion: number;
  readonly auctionProportion: number;
  readonly bidProportion: number;
  /** person + auction + bid proportions: the length of one cycle of event types. */
  readonly totalProportion: number;
  /** Bidders and sellers are drawn from this many most recent people. */
  readonly numActivePeople: number;
  /** Bids go to (and auctions last about as long as) this many most recent auctions. */
  readonly numInFlightAuctions: number;
  /** 1 in this many bids goes to any open auction; the rest to a hot one. */
  readonly hotAuctionRatio: number;
  /** 1 in this many auctions is by any active person; the rest by a hot seller. */
  readonly hotSellersRatio: number;
  /** 1 in this many bids is by any active person; the rest by a hot bidder. */
  readonly hotBiddersRatio: number;
  /** Average size of an event in bytes: `extra` pads each to about this. */
  readonly avgPersonByteSize: number;
  readonly avgAuctionByteSize: number;
  readonly avgBidByteSize: number;
}

/** The params a user may set (all optional), as the source kind takes them. */
export interface NexmarkSettings {
  readonly seed?: number | undefined;
  readonly baseTime?: number | undefined;
  readonly eventsPerSec?: number | undefined;
  readonly personProportion?: number | undefined;
  readonly auctionProportion?: number | undefined;
  readonly bidProportion?: number | undefined;
  readonly numActivePeople?: number | undefined;
  readonly numInFlightAuctions?: number | undefined;
  readonly hotAuctionRatio?: number | undefined;
  readonly hotSellersRatio?: number | undefined;
  readonly hotBiddersRatio?: number | undefined;
  readonly avgPersonByteSize?: number | undefined;
  readonly avgAuctionByteSize?: number | undefined;
  readonly avgBidByteSize?: number | undefined;
}

/** Flink's NexmarkConfiguration defaults. */
export const NEXMARK_DEFAULTS = {
  eventsPerSec: 10_000,
  personProportion: 1,
  auctionProportion: 3,
  bidProportion: 46,
  numActivePeople: 1000,
  numInFlightAuctions: 100,
  hotAuctionRatio: 2,
  hotSellersRatio: 4,
  hotBiddersRatio: 4,
  avgPersonByteSize: 200,
  avgAuctionByteSize: 500,
  avgBidByteSize: 100,
} as const;

export function nexmarkConfig(settings: NexmarkSettings = {}): NexmarkConfig {
  const d = NEXMARK_DEFAULTS;
  const personProportion = settings.personProportion ?? d.personProportion;
  const auctionProportion = settings.auctionProportion ?? d.auctionProportion;
  const bidProportion = settings.bidProportion ?? d.bidProportion;
  return {
    seed: settings.seed ?? 0,
    baseTime: settings.baseTime ?? DEFAULT_BASE_TIME,
    interEventDelayUs: 1_000_000 / (settings.eventsPerSec ?? d.eventsPerSec),
    personProportion,
    auctionProportion,
    bidProportion,
    totalProportion: personProportion + auctionProportion + bidProportion,
    numActivePeople: settings.numActivePeople ?? d.numActivePeople,
    numInFlightAuctions: settings.numInFlightAuctions ?? d.numInFlightAuctions,
    hotAuctionRatio: settings.hotAuctionRatio ?? d.hotAuctionRatio,
    hotSellersRatio: settings.hotSellersRatio ?? d.hotSellersRatio,
    hotBiddersRatio: settings.hotBiddersRatio ?? d.hotBiddersRatio,
    avgPersonByteSize: settings.avgPersonByteSize ?? d.avgPersonByteSize,
    avgAuctionByteSize: settings.avgAuctionByteSize ?? d.avgAuctionByteSize,
    avgBidByteSize: settings.avgBidByteSize ?? d.avgBidByteSize,
  };
}
