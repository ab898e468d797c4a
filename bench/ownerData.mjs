// The input of the loops benchmark: the owner-has-items example's events (its events.jsonl's
// shape, as test/ownerEvents.ts writes them for the tests), many more of them, written under
// bench/.work/data and reused while the parameters are unchanged.
//
// `add` gives an item to an owner; `move` takes it from its current owner to another. Half the
// moves take the item that moved last, so a move often overtakes its item, which is still on its
// way round the feedback edge to its new owner: the example parks such a move ("waiting") and
// carries it out when the item arrives. How many moves wait depends on how input and feedback
// interleave; what is owned and released does not. The meta keeps the digest of those lines,
// without their `subtask` (which key groups decide, alike everywhere).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkWriter, DATA_DIR, MultisetDigest, mulberry32, readMeta } from './data.mjs';

const GENERATOR_VERSION = 1;

/**
 * The canonical form of an output line the input decides; undefined for a "waiting" one (timing
 * decides those). The fields the example writes, less `subtask`.
 */
export function ownershipCanon(o) {
  if (o.event === 'waiting') return undefined;
  return `${o.event}\u0000${o.owner}\u0000${o.item}\u0000${o.seq}\u0000${o.to ?? ''}\u0000${o.from ?? ''}`;
}

/** The events input. Returns { path, events, moves, owners, bytes, expectedDigest }. */
export function ownerData({ events, owners, seed = 29 }) {
  mkdirSync(DATA_DIR, { recursive: true });
  const params = { kind: 'owners', v: GENERATOR_VERSION, events, owners, seed };
  const path = join(DATA_DIR, `owners-e${events}-o${owners}-s${seed}.jsonl`);
  const metaPath = `${path}.meta.json`;
  const cached = readMeta(metaPath, params);
  if (cached) return cached;

  const rand = mulberry32(seed);
  const uniform = () => rand() / 4294967296;
  const ownerOf = new Map();
  const items = [];
  const digest = new MultisetDigest();
  const out = new ChunkWriter(path);
  let last;
  let moves = 0;
  const anOwner = () => `o${1 + (rand() % owners)}`;
  for (let seq = 1; seq <= events; seq++) {
    if (items.length < 20 || uniform() < 0.15) {
      const item = `i${items.length + 1}`;
      const owner = anOwner();
      items.push(item);
      ownerOf.set(item, owner);
      out.line(JSON.stringify({ seq, type: 'add', owner, item }));
      digest.add(ownershipCanon({ event: 'owned', owner, item, seq }));
      continue;
    }
    const item = last !== undefined && uniform() < 0.5 ? last : items[rand() % items.length];
    const from = ownerOf.get(item);
    let to = from;
    while (to === from) to = anOwner();
    ownerOf.set(item, to);
    last = item;
    moves++;
    out.line(JSON.stringify({ seq, type: 'move', owner: from, item, from, to }));
    // Every move is carried out once, whether it waited for its item or not.
    digest.add(ownershipCanon({ event: 'released', owner: from, item, to, seq }));
    digest.add(ownershipCanon({ event: 'owned', owner: to, item, from, seq }));
  }
  out.close();
  const meta = { params, path, events, moves, owners, bytes: out.bytes, expectedDigest: digest.toString() };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}
