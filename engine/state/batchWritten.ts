// Where a batch of LevelDB writes writes, so that a range read knows whether it must wait for
// the batch (levelKvStore.ts) or may take LevelDB's iterator at once.
import { isTimerEntry } from './stateKeys.js';
import { compareUtf8 } from './storeBrowser.js';

/**
 * Where a batch writes: per timer space, the greatest key it writes there (UTF-8 order); of the
 * other spaces only whether it writes any. A timer refill's range read is the one that must
 * not wait (a map's iteration waits for a batch with any write, as before): noting each
 * container's space per write cost a window 5% of its time.
 */
export class Written {
  readonly timers = new Map<string, string>();
  /** Whether the batch writes an entry that is not a timer. */
  others = false;
  /** Entries written by their full key (a restore): every range read must wait for the batch. */
  unsplit = false;

  note(space: string, key: string): void {
    if (isTimerEntry(space)) this.noteTimer(space, key);
    else this.others = true;
  }

  /** As note, for a space known to be a timer space. */
  noteTimer(space: string, key: string): void {
    const greatest = this.timers.get(space);
    if (greatest === undefined || compareUtf8(key, greatest) > 0) this.timers.set(space, key);
  }

  /** Whether a key of `space` after `after` (any key when undefined) is written. */
  touches(space: string, after: string | undefined): boolean {
    if (this.unsplit) return true;
    if (!isTimerEntry(space)) return this.others;
    const greatest = this.timers.get(space);
    if (greatest === undefined) return false;
    return after === undefined || compareUtf8(greatest, after) > 0;
  }
}
