// A fixed number of rows of numbers, the oldest overwritten first. The metrics charts keep a
// minute or so of points per operator for as long as a run lasts, so the memory they take must
// not grow with the run; columns are typed arrays so uPlot can be handed plain number arrays.
export class RingBuffer {
  private readonly columns: Float64Array[];
  private start = 0;
  private count = 0;

  constructor(
    readonly capacity: number,
    columnCount: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer`);
    this.columns = Array.from({ length: columnCount }, () => new Float64Array(capacity));
  }

  get size(): number {
    return this.count;
  }

  push(row: readonly number[]): void {
    if (row.length !== this.columns.length) {
      throw new Error(`a row has ${this.columns.length} values, not ${row.length}`);
    }
    const at = (this.start + this.count) % this.capacity;
    this.columns.forEach((column, c) => {
      column[at] = row[c]!;
    });
    if (this.count < this.capacity) this.count++;
    else this.start = (this.start + 1) % this.capacity;
  }

  /** One column, oldest first. */
  column(index: number): number[] {
    const column = this.columns[index];
    if (column === undefined) throw new Error(`no column ${index}`);
    const out = new Array<number>(this.count);
    for (let k = 0; k < this.count; k++) out[k] = column[(this.start + k) % this.capacity]!;
    return out;
  }

  /** The newest value of a column, if any. */
  last(index: number): number | undefined {
    if (this.count === 0) return undefined;
    return this.columns[index]?.[(this.start + this.count - 1) % this.capacity];
  }

  clear(): void {
    this.start = 0;
    this.count = 0;
  }
}
