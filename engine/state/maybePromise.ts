// Work that is almost always synchronous (a record, a state write, a block of a file) returns
// undefined, and a promise only when it did go asynchronous: a promise per record costs about 25
// times the record itself, so the common path must neither make one nor await one (even
// `await undefined` takes a turn of the microtask queue). State is the lowest layer that has
// such work; everything above it speaks of it in these terms.

/** A promise when the work went asynchronous, undefined when it is already done. */
export type MaybePromise<T = void> = Promise<T> | undefined;

/**
 * `next` at once when nothing is pending, otherwise once `pending` has resolved (a rejection
 * skips it and passes on). Synchronous work stays synchronous: no promise, no turn.
 */
export function after(pending: MaybePromise<unknown>, next: () => MaybePromise): MaybePromise {
  return pending === undefined ? next() : pending.then(next);
}
