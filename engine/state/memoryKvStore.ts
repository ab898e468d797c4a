// The heap backend: the same layout as LevelDB, so both backends give the same results
// (containers are read in key order here too).
import type { ElementEntries, KvStore } from './kvStore.js';

export class MemoryKvStore implements KvStore {
  private readonly entries = new Map<string, string>();
  private readonly containers = new Map<string, Map<string, string>>();

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  put(key: string, value: string | undefined): void {
    if (value === undefined) this.entries.delete(key);
    else this.entries.set(key, value);
  }

  elementGet(container: string, element: string): string | undefined {
    return this.containers.get(container)?.get(element);
  }

  elementPut(container: string, element: string, value: string | undefined): void {
    let elements = this.containers.get(container);
    if (value === undefined) {
      elements?.delete(element);
      if (elements?.size === 0) this.containers.delete(container);
      return;
    }
    if (elements === undefined) {
      elements = new Map();
      this.containers.set(container, elements);
    }
    elements.set(element, value);
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
