// A bigger input for the owner-has-items example, shaped like its events.jsonl (as
// test/checkpoints.test.ts writes it), and what to check of the example's output whatever the
// executor: the owned/released records are fixed by the input, the "waiting" ones by timing.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { seededRandom } from './checkpointHelpers.js';
import { examplesDir, type JobDocument, type OwnerEvent, readJob } from './cliHarness.js';

/**
 * `count` add and move events from a fixed seed: 40 owners, every move leaves the item's current
 * owner, and half the moves take the item that moved last (so moves overtake their item round
 * the feedback edge). Returns who owns what at the end, and the seqs of the moves.
 */
export function writeOwnerEvents(
  file: string,
  count: number,
): { owners: Map<string, string>; moves: Set<number> } {
  const random = seededRandom(20240611);
  const ownerOf = new Map<string, string>();
  const moves = new Set<number>();
  const items: string[] = [];
  let last: string | undefined;
  const lines: string[] = [];
  for (let seq = 1; seq <= count; seq++) {
    let event: OwnerEvent;
    if (items.length < 20 || random() < 0.15) {
      const item = `i${items.length + 1}`;
      const owner = `o${1 + Math.floor(random() * 40)}`;
      items.push(item);
      ownerOf.set(item, owner);
      event = { seq, type: 'add', owner, item };
    } else {
      const item = last !== undefined && random() < 0.5 ? last : items[Math.floor(random() * items.length)]!;
      const from = ownerOf.get(item)!;
      let to = from;
      while (to === from) to = `o${1 + Math.floor(random() * 40)}`;
      ownerOf.set(item, to);
      last = item;
      moves.add(seq);
      event = { seq, type: 'move', owner: from, item, from, to };
    }
    lines.push(JSON.stringify(event));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { owners: ownerOf, moves };
}

/** The example job reading `events`, checkpointing every `intervalMs`, on `threads` threads. */
export async function ownersJob(events: string, intervalMs: number, threads: number): Promise<JobDocument> {
  const job = await readJob(path.join(examplesDir, 'owner-has-items', 'owner-has-items.job.json'));
  const source = (job.operators as JobDocument[]).find((op) => op.kind === 'source.jsonl')!;
  source.params.path = events;
  job.settings.checkpointIntervalMs = intervalMs;
  job.settings.threads = threads;
  return job;
}

export const isWaiting = (line: string) => line.includes('"event":"waiting"');

/** An item's owner is the owner of its `owned` record with the highest seq. */
export function foldOwnership(lines: readonly string[]): Map<string, string> {
  const latest = new Map<string, { seq: number; owner: string }>();
  for (const line of lines) {
    const change = JSON.parse(line) as { event: string; item: string; owner: string; seq: number };
    if (change.event !== 'owned') continue;
    const seen = latest.get(change.item);
    if (seen === undefined || change.seq > seen.seq) latest.set(change.item, change);
  }
  return new Map([...latest].map(([item, change]) => [item, change.owner]));
}

/** A move waits at most once (when it overtakes its item), and only moves wait. */
export function expectWaitsOfMoves(
  lines: readonly string[],
  moves: ReadonlySet<number>,
  context: string,
): void {
  const waits = lines.filter(isWaiting).map((line) => (JSON.parse(line) as { seq: number }).seq);
  for (const seq of waits) expect(moves.has(seq), `${context}\nwaiting seq ${seq} is not a move`).toBe(true);
  expect(new Set(waits).size, `${context}\na move waited twice`).toBe(waits.length);
}
