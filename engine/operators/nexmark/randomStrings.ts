// The random text in NEXMark events: short words for names and items, and `extra` padding that
// brings each event to its average size. Padding is cut from one long fixed string at a random
// offset (as Flink does), so making it costs one draw, not one per character.
import { EventRandom } from './eventRandom.js';

const MIN_WORD_LENGTH = 3;
const A = 97;

/** Letters, with a space (or `special`) 1 time in 13; trimmed; 3 to maxLength - 1 long before trimming. */
export function randomWord(random: EventRandom, maxLength: number, special = ' '): string {
  let length = MIN_WORD_LENGTH + random.nextInt(maxLength - MIN_WORD_LENGTH);
  let text = '';
  while (length-- > 0)
    text += random.nextInt(13) === 0 ? special : String.fromCharCode(A + random.nextInt(26));
  return text.trim();
}

const PADDING_SOURCE_LENGTH = 1 << 18;
let paddingSource: string | undefined;

/** Made once per thread from a fixed seed: the same text in every run. */
function padding(): string {
  if (paddingSource === undefined) {
    const random = new EventRandom().reseed(0x6e65786d, 0);
    const codes = new Array<string>(PADDING_SOURCE_LENGTH);
    for (let i = 0; i < PADDING_SOURCE_LENGTH; i++) codes[i] = String.fromCharCode(A + random.nextInt(26));
    paddingSource = codes.join('');
  }
  return paddingSource;
}

/** Exactly `length` letters. */
export function randomLetters(random: EventRandom, length: number): string {
  const source = padding();
  if (length < source.length / 2) {
    const offset = random.nextInt(source.length - length);
    return source.slice(offset, offset + length);
  }
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(A + random.nextInt(26));
  return text;
}

/** Padding so that currentSize plus its length is averageSize on average (±20%), or nothing. */
export function randomExtra(random: EventRandom, currentSize: number, averageSize: number): string {
  if (currentSize > averageSize) return '';
  const wanted = averageSize - currentSize;
  const delta = Math.round(wanted * 0.2);
  const length = wanted - delta + (delta === 0 ? 0 : random.nextInt(2 * delta));
  return randomLetters(random, length);
}
