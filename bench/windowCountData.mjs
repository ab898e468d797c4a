// The input of the tumbling-window count benchmark, written under bench/.work/data and reused
// while its parameters are unchanged (a .meta.json beside it says what it holds).
//
// {"k":"key-<n>","t":<epoch ms>,"v":<int>} lines: keys drawn uniformly from `keys` keys by a
// seeded PRNG; record i at base + i × stepMs + a jitter in [0, jitterMs), so times run a little
// out of order. With maxOutOfOrdernessMs = jitterMs no record is ever late (the watermark after
// record i is below base + i × stepMs), so every implementation must give exactly the counts
// computed here: one {key, start, end, value} per key and tumbling window of `sizeMs` that holds
// any of its records. The meta file keeps the digest of that multiset of outputs, and of the
// sliding windows' (size `sizeMs`, every `sizeMs` / 3: each record in three of them).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkWriter, DATA_DIR, MultisetDigest, mulberry32, readMeta } from './data.mjs';

const GENERATOR_VERSION = 2;
/** 2024-01-01T00:00:00Z, as source.nexmark's default base time. */
const BASE_TIME = 1_704_067_200_000;

/** The canonical form of one window result, the same for the engine and the scripts. */
export function windowCanon(o) {
  return `${o.key}\u0000${o.start}\u0000${o.end}\u0000${o.value}`;
}

/**
 * The window-count input. Returns { path, records, keys, sizeMs, jitterMs, bytes, windows,
 * outputs, expectedDigest }.
 */
export function windowCountData({ records, keys, sizeMs, stepMs = 1, jitterMs = 50, seed = 3 }) {
  mkdirSync(DATA_DIR, { recursive: true });
  const params = {
    kind: 'window-count',
    v: GENERATOR_VERSION,
    records,
    keys,
    sizeMs,
    stepMs,
    jitterMs,
    seed,
  };
  const path = join(DATA_DIR, `window-r${records}-k${keys}-w${sizeMs}-s${seed}.jsonl`);
  const metaPath = `${path}.meta.json`;
  const cached = readMeta(metaPath, params);
  if (cached) return cached;

  if (sizeMs % 3 !== 0) throw new Error(`window sizeMs ${sizeMs} is not 3 slides of whole ms`);
  const slideMs = sizeMs / 3;
  const rand = mulberry32(seed);
  const counts = new Map(); // window start -> Map(key -> count)
  const sliding = new Map(); // the same for the sliding windows
  const out = new ChunkWriter(path);
  for (let i = 0; i < records; i++) {
    const k = `key-${rand() % keys}`;
    const t = BASE_TIME + i * stepMs + (rand() % jitterMs);
    out.line(`{"k":"${k}","t":${t},"v":${rand() % 1000}}`);
    const start = t - (t % sizeMs); // times are positive and the offset 0
    let w = counts.get(start);
    if (w === undefined) {
      w = new Map();
      counts.set(start, w);
    }
    w.set(k, (w.get(k) ?? 0) + 1);
    for (let s = t - (t % slideMs); s > t - sizeMs; s -= slideMs) {
      let sw = sliding.get(s);
      if (sw === undefined) {
        sw = new Map();
        sliding.set(s, sw);
      }
      sw.set(k, (sw.get(k) ?? 0) + 1);
    }
  }
  out.close();
  const digest = new MultisetDigest();
  for (const [start, w] of counts) {
    for (const [key, value] of w) digest.add(windowCanon({ key, start, end: start + sizeMs, value }));
  }
  const slidingDigest = new MultisetDigest();
  for (const [start, w] of sliding) {
    for (const [key, value] of w) slidingDigest.add(windowCanon({ key, start, end: start + sizeMs, value }));
  }
  const meta = {
    params,
    path,
    records,
    keys,
    sizeMs,
    jitterMs,
    bytes: out.bytes,
    windows: counts.size,
    outputs: digest.count,
    expectedDigest: digest.toString(),
    slideMs,
    slidingOutputs: slidingDigest.count,
    slidingDigest: slidingDigest.toString(),
  };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}
