// When a LevelDB store's pending writes go to LevelDB as one batch. Small entries are held
// long: a key written again before the cut costs LevelDB one put instead of two, and jobs
// rewrite the same keys (a read-modify-write over 100,000 keys: 27% less CPU than cutting at
// 4,096 entries; 2M timers whose keys' state is rewritten at every round of firings: 12%), while
// small entries cost the heap little. Large values go soon: each scavenge they live through
// copies them (large state, 1,000-char values: 4% more CPU held to 4 MB than to 1 MB).

/** Distinct pending entries: bounds the batch's Maps whatever the sizes. */
const MAX_ENTRIES = 131_072;
/** The heap the distinct pending entries hold, estimated (an entry's Map slot and strings). */
const MAX_BYTES = 16 * 1024 * 1024;
const ENTRY_BYTES = 64;
/** A value this long is large: it counts towards MAX_LARGE_CHARS at every write. */
const LARGE_VALUE_CHARS = 256;
const MAX_LARGE_CHARS = 1024 * 1024;

export class BatchBudget {
  private bytes = 0;
  private largeChars = 0;

  /**
   * A pending write of a key `keyLength` long: `added` when it made a new pending entry rather
   * than replacing one (a replaced small value's growth is not counted: below 256 chars it is
   * bounded by the entry count).
   */
  note(added: boolean, keyLength: number, value: string | null): void {
    const chars = value === null ? 0 : value.length;
    if (added) this.bytes += ENTRY_BYTES + keyLength + chars;
    if (chars >= LARGE_VALUE_CHARS) this.largeChars += chars;
  }

  /** Whether `entries` distinct pending entries, with what was noted, make a batch. */
  full(entries: number): boolean {
    return entries >= MAX_ENTRIES || this.bytes >= MAX_BYTES || this.largeChars >= MAX_LARGE_CHARS;
  }

  reset(): void {
    this.bytes = 0;
    this.largeChars = 0;
  }
}
