// "Did you mean ...?": the candidate a typo most likely meant, by edit distance.
import { kindNames } from '../kinds/kindRegistry.js';
import { quote } from './valueWords.js';

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate a typo most likely meant, if one is close enough to suggest. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  // No id is longer than 64 characters, and the distance is at least the difference in length:
  // skipping what cannot be close keeps two long strings from costing length × length.
  if (word.length > 100) return undefined;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const distance =
      candidate.toLowerCase() === word.toLowerCase()
        ? 0
        : editDistance(word.toLowerCase(), candidate.toLowerCase());
    // One letter away from a one-letter name is no evidence of a typo.
    const plausible = distance < Math.min(word.length, candidate.length) || distance === 0;
    if (plausible && distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean "map"?` for a kind that is no registered kind, or nothing. */
export const guessKind = (word: string): string => {
  const guess = closest(word, kindNames());
  return guess === undefined ? '' : `; did you mean ${quote(guess)}?`;
};

/** ` (did you mean "x"?)`, or nothing when no candidate is close. */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const guess = closest(word, candidates);
  return guess === undefined ? '' : ` (did you mean ${quote(guess)}?)`;
};
