// source.nexmark: the NEXMark benchmark's person/auction/bid stream, as Flink's nexmark generator
// defines it; deterministic by seed, with event time; unbounded without a count.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { nonNegativeMs } from './paramTypes.js';

const atLeastOne = (what: string) => z.number().int().min(1).optional().describe(what);

export const sourceNexmarkKind = defineKind({
  kind: 'source.nexmark',
  role: 'source',
  params: z.strictObject({
    count: z.number().int().min(0).optional().describe('Events to make; without end when absent.'),
    ratePerSec: z
      .number()
      .positive()
      .optional()
      .describe('At most this many events per second of wall-clock time; as fast as it can when absent.'),
    eventsPerSec: z
      .number()
      .positive()
      .optional()
      .describe(
        'How fast event time goes: event n happens n / eventsPerSec seconds after baseTime. Default ratePerSec, else 10000.',
      ),
    baseTime: z
      .number()
      .int()
      .optional()
      .describe('Epoch ms of the first event. Default 2024-01-01T00:00:00Z.'),
    seed: z.number().int().optional().describe('The same seed makes the same events.'),
    maxOutOfOrdernessMs: nonNegativeMs
      .optional()
      .describe('Watermark = the highest event time so far minus this (default 0).'),
    personProportion: atLeastOne('People in each cycle of events (default 1).'),
    auctionProportion: atLeastOne('Auctions in each cycle of events (default 3).'),
    bidProportion: atLeastOne('Bids in each cycle of events (default 46).'),
    numActivePeople: atLeastOne('Sellers and bidders are among this many newest people (default 1000).'),
    numInFlightAuctions: atLeastOne('Bids go to this many newest auctions (default 100).'),
    hotAuctionRatio: atLeastOne('1 in this many bids is not on a hot auction (default 2).'),
    hotSellersRatio: atLeastOne('1 in this many auctions is not by a hot seller (default 4).'),
    hotBiddersRatio: atLeastOne('1 in this many bids is not by a hot bidder (default 4).'),
    avgPersonByteSize: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Pads people to about this size (default 200).'),
    avgAuctionByteSize: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Pads auctions to about this size (default 500).'),
    avgBidByteSize: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Pads bids to about this size (default 100).'),
  }),
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'NEXMark',
    group: 'source',
    description:
      'The NEXMark benchmark’s online auction: people, auctions and bids (1:3:46), with event time; deterministic by seed.',
    idBase: 'nexmark',
    defaultParams: { count: 10_000 },
    icon: 'M2 13.5h12 M3.5 13.5V9 M6.5 13.5V5 M9.5 13.5V7 M12.5 13.5V2.5',
  },
});
