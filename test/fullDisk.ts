// A disk that fills up, simulated in this process at the file-system layer, so that the engine's
// own code meets ENOSPC where a real full disk would make it (no mount, no root): files opened
// through node:fs/promises under one folder share `space`, the bytes still free. A write larger
// than what is left writes what fits and says so (a short write, as write(2) does), and the next
// one fails with ENOSPC. Only writes on file handles count, which is how the engine writes its
// output and checkpoint files; what other code writes is untouched.
import type { FileHandle } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');

type Write = (this: FileHandle, ...args: unknown[]) => Promise<{ bytesWritten: number; buffer: unknown }>;

function noSpace(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}

export class FullDisk {
  /** Bytes still free under the folder; Infinity: the disk has room. */
  space = Number.POSITIVE_INFINITY;
  /** Writes refused for want of space so far. */
  refused = 0;
  /** Files under the folder opened and not closed yet: what a failure must not leave behind. */
  readonly open = new Set<string>();
  private readonly files = new WeakMap<FileHandle, string>();
  private restore: (() => void) | undefined;

  constructor(readonly folder: string) {}

  /** Puts the simulated disk under `folder` in place; `uninstall` takes it away. */
  async install(): Promise<void> {
    const originalOpen = fsPromises.open;
    const probe = await originalOpen(process.execPath, 'r');
    const prototype = Object.getPrototypeOf(probe) as { write: Write };
    await probe.close();
    const originalWrite = prototype.write;
    const handles = new Map<FileHandle, string>();
    const inside = path.resolve(this.folder) + path.sep;
    const disk = this;
    const open = async (...args: Parameters<typeof originalOpen>) => {
      const handle = await originalOpen(...args);
      const file = path.resolve(String(args[0]));
      if (file.startsWith(inside)) {
        disk.files.set(handle, file);
        handles.set(handle, file);
        disk.open.add(file);
        // A FileHandle's close is a field of each handle, not on its prototype.
        const close = handle.close;
        handle.close = () => {
          if (handles.delete(handle) && ![...handles.values()].includes(file)) disk.open.delete(file);
          return close();
        };
      }
      return handle;
    };
    prototype.write = function (this: FileHandle, ...args: unknown[]) {
      const file = disk.files.get(this);
      if (file === undefined || disk.space === Number.POSITIVE_INFINITY)
        return originalWrite.apply(this, args);
      // write(buffer, offset?, length?, position?) or write(string, position?, encoding?)
      const [data, offset, length, position] = args;
      const buffer =
        typeof data === 'string'
          ? Buffer.from(data, (length as BufferEncoding) ?? 'utf8')
          : (data as Uint8Array);
      const start = typeof data === 'string' ? 0 : ((offset as number | undefined) ?? 0);
      const wanted =
        typeof data === 'string' ? buffer.length : ((length as number | undefined) ?? buffer.length - start);
      const at =
        typeof data === 'string'
          ? (offset as number | null | undefined)
          : (position as number | null | undefined);
      if (disk.space <= 0) {
        disk.refused++;
        return Promise.reject(noSpace(file));
      }
      const written = Math.min(wanted, disk.space);
      disk.space -= written;
      return originalWrite.call(this, buffer, start, written, at ?? null);
    };
    fsPromises.open = open as typeof originalOpen;
    syncBuiltinESMExports();
    this.restore = () => {
      prototype.write = originalWrite;
      fsPromises.open = originalOpen;
      syncBuiltinESMExports();
    };
  }

  uninstall(): void {
    this.restore?.();
    this.restore = undefined;
  }
}
