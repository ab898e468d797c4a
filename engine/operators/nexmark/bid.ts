// A bid: mostly on a hot auction by a hot bidder, else on any auction likely open, by any active
// person. (Flink's generator adds FIRST_PERSON_ID to the bidder twice, so its bidders are not
// people's ids; NEXMark and Beam add it once, as here, so a bidder is a person.)
import { randomBidChannel } from './bidChannels.js';
import { lastAuctionId, lastPersonId, randomAuctionId, randomPersonId } from './entityIds.js';
import type { EventRandom } from './eventRandom.js';
import { FIRST_AUCTION_ID, FIRST_PERSON_ID, type NexmarkConfig } from './nexmarkConfig.js';
import type { BidRecord } from './nexmarkRecords.js';
import { randomPrice } from './price.js';
import { randomExtra } from './randomStrings.js';

/** Hot auctions are the first of each block of this many; hot bidders the second person of one. */
const HOT_BLOCK = 100;

export function makeBid(
  config: NexmarkConfig,
  eventNumber: number,
  timestamp: number,
  random: EventRandom,
): BidRecord {
  const auction =
    FIRST_AUCTION_ID +
    (random.nextInt(config.hotAuctionRatio) > 0
      ? Math.floor(lastAuctionId(config, eventNumber) / HOT_BLOCK) * HOT_BLOCK
      : randomAuctionId(config, eventNumber, random));
  const bidder =
    FIRST_PERSON_ID +
    (random.nextInt(config.hotBiddersRatio) > 0
      ? Math.floor(lastPersonId(config, eventNumber) / HOT_BLOCK) * HOT_BLOCK + 1
      : randomPersonId(config, eventNumber, random));
  const price = randomPrice(random);
  const { channel, url } = randomBidChannel(random);
  const extra = randomExtra(random, 32, config.avgBidByteSize);
  return { type: 'bid', auction, bidder, price, channel, url, dateTime: timestamp, extra };
}
