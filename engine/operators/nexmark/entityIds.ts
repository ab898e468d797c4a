// Which people and auctions exist at event n, and how an event picks one: ids follow from the
// event number alone (the k-th person event makes person k), so no subtask needs to know what
// another made. Ids here are base 0; FIRST_PERSON_ID and FIRST_AUCTION_ID are added by the
// makers.
import type { EventRandom } from './eventRandom.js';
import type { NexmarkConfig } from './nexmarkConfig.js';

/** How far past the newest person or auction a random pick may reach (ids not made yet). */
const ID_LEAD = 10;

/** The newest person at event n: the one it makes, if it is a person event. */
export function lastPersonId(config: NexmarkConfig, eventNumber: number): number {
  const cycle = Math.floor(eventNumber / config.totalProportion);
  const offset = eventNumber % config.totalProportion;
  return cycle * config.personProportion + Math.min(offset, config.personProportion - 1);
}

/** The newest auction at event n: the one it makes, if it is an auction event. */
export function lastAuctionId(config: NexmarkConfig, eventNumber: number): number {
  let cycle = Math.floor(eventNumber / config.totalProportion);
  let offset = eventNumber % config.totalProportion;
  if (offset < config.personProportion) {
    // Before this cycle's auctions: the last auction of the cycle before.
    cycle--;
    offset = config.auctionProportion - 1;
  } else if (offset >= config.personProportion + config.auctionProportion) {
    offset = config.auctionProportion - 1;
  } else {
    offset -= config.personProportion;
  }
  return cycle * config.auctionProportion + offset;
}

/** Any of the active (most recent) people, or one a little ahead of the newest. */
export function randomPersonId(config: NexmarkConfig, eventNumber: number, random: EventRandom): number {
  const people = lastPersonId(config, eventNumber) + 1;
  const active = Math.min(people, config.numActivePeople);
  return people - active + random.nextInt(active + ID_LEAD);
}

/** Any of the auctions likely still open, or one a little ahead of the newest. */
export function randomAuctionId(config: NexmarkConfig, eventNumber: number, random: EventRandom): number {
  const newest = lastAuctionId(config, eventNumber);
  const oldest = Math.max(newest - config.numInFlightAuctions, 0);
  return oldest + random.nextInt(newest - oldest + 1 + ID_LEAD);
}
