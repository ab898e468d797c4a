// Redis stream entry ids ("<ms>-<seq>"): their order, and what a user may write as one.

const ID = /^(\d+)(?:-(\d+))?$/;

/** Whether `text` is an id a stream read can start after ("1700000000000-0", or its ms alone). */
export function isStreamId(text: string): boolean {
  return ID.test(text);
}

function parts(id: string): [bigint, bigint] {
  const match = ID.exec(id);
  if (match === null) throw new Error(`"${id}" is not a stream entry id`);
  return [BigInt(match[1]!), BigInt(match[2] ?? '0')];
}

/** Negative, zero or positive as `a` comes before, at or after `b` in a stream. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = parts(a);
  const [bm, bs] = parts(b);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/** The entry's time in ms (its id's first part), which messages name it by. */
export function streamIdTime(id: string): number {
  return Number(parts(id)[0]);
}
