// The heap backend: the same layout as LevelDB, so both backends give the same results
// (containers are read in key order here too).
import type { ElementEntries, KvStore } from './kvStore.js';

export class MemoryKvStore implements KvStore {
  private readonly entries = new Map<string, string>();
  private readonly containers = new Map<string, Map<string, string>>();

  private lastKey: string | undefined;
  private lastValue: string | undefined;

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    this.lastKey = key;
    this.lastValue = value;
    return value;
  }

  put(key: string, value: string | undefined): string | undefined {
    const previous = key === this.lastKey ? this.lastValue : this.entries.get(key);
    if (value === undefined) this.entries.delete(key);
    else this.entries.set(key, value);
    this.lastKey = key;
    this.lastValue = value;
    return previous;
  }

  elementGet(container: string, element: string): string | undefined {
    return this.containers.get(container)?.get(element);
  }

  elementPut(container: string, element: string, value: string | undefined): string | undefined {
    let elements = this.containers.get(container);
    const previous = elements?.get(element);
    if (value === undefined) {
      elements?.delete(element);
      if (elements?.size === 0) this.containers.delete(container);
      return previous;
    }
    if (elements === undefined) {
      elements = new Map();
      this.containers.set(container, elements);
    }
    elements.set(element, value);
    return previous;
  }

  async *elements(container: string): ElementEntries {
    const elements = this.containers.get(container);
    if (elements === undefined) return;
    // A snapshot, as a LevelDB iterator gives: writes during the scan do not show up in it.
    const snapshot = [...elements].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    yield* snapshot;
  }

  dropContainer(container: string): void {
    this.containers.delete(container);
  }

  maybeFlush(): undefined {
    return undefined;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    this.entries.clear();
    this.containers.clear();
  }
}
