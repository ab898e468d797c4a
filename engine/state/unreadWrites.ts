// Writes whose replaced value a LevelDB store tells later (KvStore.putUnread): a map element set
// where nothing on the heap knows the element, which would otherwise cost a LevelDB read per
// write on the record's thread. Nothing pending writes such a key (the store looked), so what
// LevelDB holds for it stays what the write replaced until the write's own batch is written:
// it is read any time before, in chunks with getMany (on libuv's threads) as the writes come.
// A batch is written only once its writes are told; what must be exact sooner (a state size
// shown, a batch cut for a checkpoint) settles the rest with synchronous reads.
import type { ClassicLevel } from 'classic-level';

/**
 * Unread writes read together: one getMany per this many. A getMany costs the record's thread a
 * fixed part and a part per key (its keys are copied there); 256 a call cost more than the
 * getSync reads it saved in the large-state job, 1024 and a batch's all about a third of them.
 */
const CHUNK = 1024;

interface Unread {
  /** The full key. */
  readonly key: string;
  readonly replaced: (old: string | undefined) => void;
  settled: boolean;
}

/** The unread writes of one batch. */
export class BatchUnread {
  readonly writes: Unread[] = [];
  /** Writes before this one have been asked for. */
  asked = 0;
  readonly reads: Promise<void>[] = [];
}

/** The unread writes of the batch being gathered and of each batch in flight, oldest first. */
export class UnreadWrites {
  private current = new BatchUnread();
  private readonly inFlight: BatchUnread[] = [];

  constructor(private readonly db: ClassicLevel<string, string>) {}

  add(key: string, replaced: (old: string | undefined) => void): void {
    const batch = this.current;
    batch.writes.push({ key, replaced, settled: false });
    if (batch.writes.length - batch.asked >= CHUNK) this.ask(batch);
  }

  /** The batch being gathered goes in flight: its unread writes with it. */
  cut(): BatchUnread {
    const cut = this.current;
    this.current = new BatchUnread();
    this.inFlight.push(cut);
    return cut;
  }

  /** After its batch is written. */
  written(): void {
    this.inFlight.shift();
  }

  /** Reads what the writes not yet asked for replaced; a failed read leaves them to `told`. */
  private ask(batch: BatchUnread): void {
    const asked = batch.writes.slice(batch.asked);
    batch.asked = batch.writes.length;
    batch.reads.push(
      this.db.getMany(asked.map((u) => u.key)).then(
        (values) => tell(asked, values),
        () => {},
      ),
    );
  }

  /** Before its batch is written: every one of its writes told what it replaced. */
  async told(batch: BatchUnread): Promise<void> {
    if (batch.asked < batch.writes.length) this.ask(batch);
    await Promise.all(batch.reads);
    const left = batch.writes.filter((u) => !u.settled);
    if (left.length > 0) tell(left, await this.db.getMany(left.map((u) => u.key)));
  }

  /** Tells every unread write what it replaced, now. */
  settle(): void {
    for (const batch of [...this.inFlight, this.current]) {
      for (const u of batch.writes) {
        if (u.settled) continue;
        u.settled = true;
        u.replaced(this.db.getSync(u.key));
      }
      batch.asked = batch.writes.length;
    }
  }
}

function tell(writes: readonly Unread[], values: readonly (string | undefined)[]): void {
  for (let i = 0; i < writes.length; i++) {
    const u = writes[i]!;
    if (u.settled) continue;
    u.settled = true;
    u.replaced(values[i]);
  }
}
