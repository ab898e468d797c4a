// A new auction: the k-th auction event opens auction FIRST_AUCTION_ID + k, mostly by a hot
// seller, in one of five categories, lasting on average about as long as it takes to open
// numInFlightAuctions more auctions (so that about that many are open at any time).

import { lastAuctionId, lastPersonId, randomPersonId } from './entityIds.js';
import type { EventRandom } from './eventRandom.js';
import { eventTimestamp } from './eventSchedule.js';
import { FIRST_AUCTION_ID, FIRST_CATEGORY_ID, FIRST_PERSON_ID, type NexmarkConfig } from './nexmarkConfig.js';
import type { AuctionRecord } from './nexmarkRecords.js';
import { randomPrice } from './price.js';
import { randomExtra, randomWord } from './randomStrings.js';

const CATEGORIES = 5;
/** Hot sellers are the first person of each block of this many. */
const HOT_SELLER_BLOCK = 100;

function auctionLengthMs(
  config: NexmarkConfig,
  eventNumber: number,
  timestamp: number,
  random: EventRandom,
): number {
  const eventsToRefill = Math.floor(
    (config.numInFlightAuctions * config.totalProportion) / config.auctionProportion,
  );
  const horizonMs = eventTimestamp(config, eventNumber + eventsToRefill) - timestamp;
  return 1 + random.nextInt(Math.max(horizonMs * 2, 1));
}

export function makeAuction(
  config: NexmarkConfig,
  eventNumber: number,
  timestamp: number,
  random: EventRandom,
): AuctionRecord {
  const id = lastAuctionId(config, eventNumber) + FIRST_AUCTION_ID;
  const seller =
    FIRST_PERSON_ID +
    (random.nextInt(config.hotSellersRatio) > 0
      ? Math.floor(lastPersonId(config, eventNumber) / HOT_SELLER_BLOCK) * HOT_SELLER_BLOCK
      : randomPersonId(config, eventNumber, random));
  const category = FIRST_CATEGORY_ID + random.nextInt(CATEGORIES);
  const initialBid = randomPrice(random);
  const expires = timestamp + auctionLengthMs(config, eventNumber, timestamp, random);
  const itemName = randomWord(random, 20);
  const description = randomWord(random, 100);
  const reserve = initialBid + randomPrice(random);
  const size = 8 + itemName.length + description.length + 40;
  const extra = randomExtra(random, size, config.avgAuctionByteSize);
  return {
    type: 'auction',
    id,
    itemName,
    description,
    initialBid,
    reserve,
    dateTime: timestamp,
    expires,
    seller,
    category,
    extra,
  };
}
