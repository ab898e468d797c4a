// --metrics FILE: JSON lines, one sample a second and one at the end, appended with sync writes
// so a reader (or a crash) never sees half a line.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JobMetrics } from '../metrics/jobMetrics.js';

const EVERY_MS = 1000;

/** Node's messages carry the syscall and the path again (`EISDIR: illegal operation on a directory, open '/x'`). */
function why(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file is in the way of its folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    default:
      return error.message;
  }
}

export class MetricsFile {
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(
    private readonly path: string,
    private readonly sample: () => JobMetrics | undefined,
  ) {}

  /** Creates the file (and its folder); throws a message naming it when that is impossible. */
  start(): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(this.path, '');
      this.started = true;
    } catch (error) {
      throw new Error(`cannot write the metrics file ${this.path}: ${why(error as NodeJS.ErrnoException)}`);
    }
    this.timer = setInterval(() => this.write(false), EVERY_MS);
    this.timer.unref();
  }

  finish(status: 'finished' | 'stopped' | 'failed'): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.write(true, status);
  }

  /** Any other line, e.g. one per checkpoint. */
  event(event: object): void {
    if (this.started) appendFileSync(this.path, `${JSON.stringify(event)}\n`);
  }

  private write(final: boolean, status?: string): void {
    const metrics = this.sample();
    if (metrics === undefined) return;
    const line = {
      type: 'metrics',
      time: new Date().toISOString(),
      final,
      ...(status ? { status } : {}),
      ...metrics,
    };
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }
}
