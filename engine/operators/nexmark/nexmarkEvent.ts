// Event number -> the event: the whole definition of a NEXMark stream, given its config. Pure
// and deterministic; the source kind only decides which numbers each subtask makes.
import { makeAuction } from './auction.js';
import { makeBid } from './bid.js';
import { EventRandom } from './eventRandom.js';
import { eventTimestamp, eventType } from './eventSchedule.js';
import type { NexmarkConfig } from './nexmarkConfig.js';
import type { NexmarkRecord } from './nexmarkRecords.js';
import { makePerson } from './person.js';

/** Makes event n; `random` is reseeded for it (pass one to reuse it across events). */
export function nexmarkEvent(
  config: NexmarkConfig,
  eventNumber: number,
  random = new EventRandom(),
): NexmarkRecord {
  random.reseed(config.seed, eventNumber);
  const timestamp = eventTimestamp(config, eventNumber);
  switch (eventType(config, eventNumber)) {
    case 'person':
      return makePerson(config, eventNumber, timestamp, random);
    case 'auction':
      return makeAuction(config, eventNumber, timestamp, random);
    case 'bid':
      return makeBid(config, eventNumber, timestamp, random);
  }
}
