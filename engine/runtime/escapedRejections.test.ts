// The tag that names a rejected promise's record lives on the promise, which user code holds:
// it must stay out of its reach (a property would hand it the operator's call owner).
import { describe, expect, it } from 'vitest';
import { CallMarker, createMarkerBuffer } from './callMarker.js';
import { catchEscapedRejections } from './escapedRejections.js';

describe('escaped rejections', () => {
  it('tag the promises of a call where no reflection can see them', async () => {
    const marker = new CallMarker(createMarkerBuffer());
    catchEscapedRejections(marker);
    marker.running = true;
    // As user code's would be: made while its call runs.
    const made = Promise.resolve(1);
    const derived = made.then((v) => v + 1);
    async function userFunction() {
      await null;
      return 2;
    }
    const asyncResult = userFunction();
    marker.running = false;
    for (const promise of [made, derived, asyncResult]) {
      expect(Reflect.ownKeys(promise)).toEqual([]);
      expect(Object.getOwnPropertySymbols(promise)).toEqual([]);
      expect(Object.isExtensible(promise)).toBe(true);
    }
    expect(await Promise.all([made, derived, asyncResult])).toEqual([1, 2, 2]);
  });
});
