// Deterministic input data for the benchmarks, written under bench/.work/data and reused
// while its parameters are unchanged (a small .meta.json beside each file says what it holds).
//
// keyed:  {"k":"key-<n>","v":<int 0..999>} lines, keys drawn uniformly from `keys` keys by a
//         seeded PRNG. The meta file also holds the digest of the expected output of the
//         keyed read-modify-write job ({k, n, sum} per input), computed here with a Map, so
//         every run of the engine and of the baselines is checked against the same reference.
// large:  {"type":"FooAdded","bar":"bar-<b>","foo":"foo-<i>","payload":"<base64>"} lines:
//         few keys (bars), one new foo per record, incompressible payloads (base64 of an
//         AES-CTR keystream with a fixed key, so deterministic) so that LevelDB's snappy
//         compression cannot shrink the state.
import { createCipheriv } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const WORK_DIR = join(BENCH_DIR, '.work');
export const DATA_DIR = join(WORK_DIR, 'data');

const GENERATOR_VERSION = 1;

/** mulberry32: a small, fast, seeded 32-bit PRNG. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * An order-independent digest of a multiset of lines: two 32-bit FNV-1a variants summed
 * mod 2^32 plus their XOR, and the count. Equal multisets give equal digests; a lost,
 * duplicated or changed line changes it (barring a 2^-64-ish collision).
 */
export class MultisetDigest {
  constructor() {
    this.count = 0;
    this.sumA = 0;
    this.sumB = 0;
    this.xor = 0;
  }

  add(s) {
    let h1 = 0x811c9dc5;
    let h2 = 0x2166136;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h2 >>> 13);
    }
    h1 = (h1 ^ (h1 >>> 16)) >>> 0;
    h2 = Math.imul(h2 ^ (h2 >>> 15), 0x85ebca6b) >>> 0;
    this.count++;
    this.sumA = (this.sumA + h1) >>> 0;
    this.sumB = (this.sumB + h2) >>> 0;
    this.xor = (this.xor ^ Math.imul(h1, 0x9e3779b1)) >>> 0;
  }

  toString() {
    const hex = (n) => n.toString(16).padStart(8, '0');
    return `${this.count}:${hex(this.sumA)}${hex(this.sumB)}${hex(this.xor)}`;
  }
}

/** The canonical form of one output record of the keyed job. */
export function keyedCanon(o) {
  return `${o.k}\u0000${o.n}\u0000${o.sum}`;
}

/** The canonical form of one output record of the large-state job. */
export function largeCanon(o) {
  return `${o.bar}\u0000${o.n}`;
}

/** Digest of a JSONL file whose lines are parsed and put in canonical form by `canon`. */
export async function digestJsonl(path, canon) {
  const d = new MultisetDigest();
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of rl) {
    if (line.length === 0) continue;
    // A line timing decides (a loop's "waiting") has no canonical form: it is not compared.
    const c = canon(JSON.parse(line));
    if (c !== undefined) d.add(c);
  }
  return d.toString();
}

/** A generated data file's meta, if it is there, intact and made with these params. */
export function readMeta(metaPath, params) {
  if (!existsSync(metaPath)) return undefined;
  try {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    if (JSON.stringify(meta.params) !== JSON.stringify(params)) return undefined;
    if (!existsSync(meta.path) || statSync(meta.path).size !== meta.bytes) return undefined;
    return meta;
  } catch {
    return undefined;
  }
}

export class ChunkWriter {
  constructor(path) {
    this.fd = openSync(path, 'w');
    this.parts = [];
    this.size = 0;
    this.bytes = 0;
  }

  line(s) {
    this.parts.push(s);
    this.size += s.length + 1;
    if (this.size > 1 << 22) this.flush();
  }

  flush() {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(`${this.parts.join('\n')}\n`, 'utf8');
    writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.parts = [];
    this.size = 0;
  }

  close() {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * The keyed read-modify-write input: `records` lines over `keys` keys.
 * Returns { path, records, keys, bytes, expectedDigest }.
 */
export function keyedData({ records, keys, seed = 1 }) {
  mkdirSync(DATA_DIR, { recursive: true });
  const params = { kind: 'keyed', v: GENERATOR_VERSION, records, keys, seed };
  const path = join(DATA_DIR, `keyed-r${records}-k${keys}-s${seed}.jsonl`);
  const metaPath = `${path}.meta.json`;
  const cached = readMeta(metaPath, params);
  if (cached) return cached;

  const rand = mulberry32(seed);
  const acc = new Map();
  const digest = new MultisetDigest();
  const w = new ChunkWriter(path);
  for (let i = 0; i < records; i++) {
    const k = `key-${rand() % keys}`;
    const v = rand() % 1000;
    w.line(`{"k":"${k}","v":${v}}`);
    let a = acc.get(k);
    if (a === undefined) {
      a = { n: 0, sum: 0 };
      acc.set(k, a);
    }
    a.n += 1;
    a.sum += v;
    digest.add(keyedCanon({ k, n: a.n, sum: a.sum }));
  }
  w.close();
  const meta = { params, path, records, keys, bytes: w.bytes, expectedDigest: digest.toString() };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}

/**
 * The large-state input: `records` FooAdded lines over `bars` bars, each with a
 * `payloadChars`-character incompressible payload.
 * Returns { path, records, bars, payloadChars, bytes, expectedDigest }.
 */
export function largeStateData({ records, bars, payloadChars, seed = 7 }) {
  mkdirSync(DATA_DIR, { recursive: true });
  const params = { kind: 'large', v: GENERATOR_VERSION, records, bars, payloadChars, seed };
  const path = join(DATA_DIR, `large-r${records}-b${bars}-p${payloadChars}-s${seed}.jsonl`);
  const metaPath = `${path}.meta.json`;
  const cached = readMeta(metaPath, params);
  if (cached) return cached;

  const key = Buffer.alloc(16);
  key.writeUInt32BE(seed >>> 0, 0);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  const rawPerRecord = Math.ceil((payloadChars * 3) / 4) + 3;
  const batch = 1024;
  const zeros = Buffer.alloc(rawPerRecord * batch);
  const rand = mulberry32(seed);
  const counts = new Array(bars).fill(0);
  const digest = new MultisetDigest();
  const w = new ChunkWriter(path);
  for (let i = 0; i < records; i += batch) {
    const stream = cipher.update(zeros);
    const m = Math.min(batch, records - i);
    for (let j = 0; j < m; j++) {
      const payload = stream
        .subarray(j * rawPerRecord, (j + 1) * rawPerRecord)
        .toString('base64')
        .slice(0, payloadChars);
      const b = rand() % bars;
      const n = ++counts[b];
      w.line(`{"type":"FooAdded","bar":"bar-${b}","foo":"foo-${i + j}","payload":"${payload}"}`);
      digest.add(largeCanon({ bar: `bar-${b}`, n }));
    }
  }
  w.close();
  const meta = {
    params,
    path,
    records,
    bars,
    payloadChars,
    bytes: w.bytes,
    expectedDigest: digest.toString(),
  };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}
