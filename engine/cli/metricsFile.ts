// --metrics FILE: JSON lines, one sample a second and one at the end, appended with sync writes
// so a reader (or a crash) never sees half a line.
import { appendFileSync, writeFileSync } from 'node:fs';
import type { JobMetrics } from '../metrics/jobMetrics.js';

const EVERY_MS = 1000;

export class MetricsFile {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly sample: () => JobMetrics,
  ) {}

  start(): void {
    writeFileSync(this.path, '');
    this.timer = setInterval(() => this.write(false), EVERY_MS);
    this.timer.unref();
  }

  finish(status: 'finished' | 'stopped' | 'failed'): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.write(true, status);
  }

  private write(final: boolean, status?: string): void {
    const metrics = this.sample();
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
