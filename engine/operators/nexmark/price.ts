// NEXMark's prices: in cents, log-uniform from $1 to $1,000,000 (most bids are small).
import type { EventRandom } from './eventRandom.js';

export function randomPrice(random: EventRandom): number {
  return Math.round(10 ** (random.nextDouble() * 6) * 100);
}
