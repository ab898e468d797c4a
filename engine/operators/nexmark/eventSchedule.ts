// Event number -> when it happens and what it is. Event n is the n-th event of the whole stream
// (0-based), whichever subtask makes it: Flink's generator with one event generator, whose
// event time advances by a fixed delay per event. (Flink's parallel source instead gives each
// subtask its own range of ids on its own timeline; numbering the whole stream keeps event n the
// same at any parallelism, and after a restore at another one.)
import type { NexmarkConfig } from './nexmarkConfig.js';

export type NexmarkEventType = 'person' | 'auction' | 'bid';

/** Epoch ms of event n: times never go down as n goes up, and several events may share one. */
export function eventTimestamp(config: NexmarkConfig, eventNumber: number): number {
  return config.baseTime + Math.floor(Math.trunc(eventNumber * config.interEventDelayUs) / 1000);
}

/** Each cycle of totalProportion events is that many people, then auctions, then bids. */
export function eventType(config: NexmarkConfig, eventNumber: number): NexmarkEventType {
  const offset = eventNumber % config.totalProportion;
  if (offset < config.personProportion) return 'person';
  if (offset < config.personProportion + config.auctionProportion) return 'auction';
  return 'bid';
}
