// Where a bid came from: half the bids from one of four hot channels, the rest from one of
// 10,000 others, each with its own URL (most of those carrying a channel id). The URLs are made
// from fixed seeds, so a channel has the same URL in every run and on every thread.
import { EventRandom } from './eventRandom.js';
import { randomWord } from './randomStrings.js';

const HOT_CHANNELS = ['Google', 'Facebook', 'Baidu', 'Apple'] as const;
const CHANNELS = 10_000;
/** 1 in this many bids comes from a channel that is not hot. */
const HOT_CHANNELS_RATIO = 2;

export interface BidChannel {
  readonly channel: string;
  readonly url: string;
}

function baseUrl(random: EventRandom): string {
  const part = () => randomWord(random, 5, '_');
  return `https://www.nexmark.com/${part()}/${part()}/${part()}/item.htm?query=1`;
}

/** The 32 bits of i in reverse order, as a signed 32-bit integer (Java's Integer.reverse). */
function reverseBits(i: number): number {
  let reversed = 0;
  let x = i;
  for (let bit = 0; bit < 32; bit++) {
    reversed = (reversed << 1) | (x & 1);
    x >>>= 1;
  }
  return reversed | 0;
}

const hot: BidChannel[] = HOT_CHANNELS.map((channel, i) => ({
  channel,
  url: baseUrl(new EventRandom().reseed(0x686f74, i)),
}));
const others: (BidChannel | undefined)[] = new Array(CHANNELS);

function otherChannel(i: number): BidChannel {
  let made = others[i];
  if (made === undefined) {
    const random = new EventRandom().reseed(0x636861, i);
    const url = baseUrl(random);
    made = {
      channel: `channel-${i}`,
      url: random.nextInt(10) > 0 ? `${url}&channel_id=${Math.abs(reverseBits(i))}` : url,
    };
    others[i] = made;
  }
  return made;
}

export function randomBidChannel(random: EventRandom): BidChannel {
  if (random.nextInt(HOT_CHANNELS_RATIO) > 0) return hot[random.nextInt(hot.length)]!;
  return otherChannel(random.nextInt(CHANNELS));
}
