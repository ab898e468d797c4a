// The connector benchmarks' check of an output: every {k, n, sum} the keyed read-modify-write
// emitted (Kafka) or the final row per key (PostgreSQL), against what the input gives.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { keyedCanon, MultisetDigest } from './data.mjs';

/** The final {n, sum} per key of a keyed JSONL input, and their digest. */
export async function finalValues(path) {
  const acc = new Map();
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of rl) {
    if (line.length === 0) continue;
    const r = JSON.parse(line);
    let a = acc.get(r.k);
    if (a === undefined) {
      a = { n: 0, sum: 0 };
      acc.set(r.k, a);
    }
    a.n += 1;
    a.sum += r.v;
  }
  return { keys: acc.size, digest: finalDigest(acc) };
}

/** Digest of a Map key -> {n, sum}. */
export function finalDigest(values) {
  const digest = new MultisetDigest();
  for (const [k, a] of values) digest.add(keyedCanon({ k, n: a.n, sum: a.sum }));
  return digest.toString();
}

/**
 * A check fed every emitted record (JSON text): `problem()` says, in one line, what differs from
 * the expected count, multiset of records (`d.expectedDigest`) and final values, or undefined.
 */
export function keyedOutputCheck(d, expected) {
  const all = new MultisetDigest();
  const last = new Map();
  let bad = 0;
  return {
    add(text) {
      let o;
      try {
        o = JSON.parse(text);
      } catch {
        bad++;
        return;
      }
      all.add(keyedCanon(o));
      const prev = last.get(o.k);
      if (prev === undefined || o.n > prev.n) last.set(o.k, o);
    },
    problem() {
      if (bad > 0) return `${bad} output records are not JSON`;
      if (all.count !== d.records) return `${all.count} output records, expected ${d.records}`;
      if (all.toString() !== d.expectedDigest) return 'the output records differ from the expected ones';
      if (last.size !== expected.keys) return `${last.size} keys in the output, expected ${expected.keys}`;
      if (finalDigest(last) !== expected.digest)
        return "the keys' final values differ from the expected ones";
      return undefined;
    },
  };
}
