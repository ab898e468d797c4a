// The Node worker of the Flink runner: one process per subtask of a map, filter, flatMap or
// process operator, started by the runner (flink/, Java) and driven over its stdin and stdout
// (workerLoop.ts). Exits 0 on `close` or at the end of stdin, 1 when the pipe itself broke (a
// frame cut short or not JSON): Flink then restarts the job from its last checkpoint. Shipped
// bundled as one file, dist/flink/flinkWorker.mjs (scripts/bundleFlinkWorker.mjs).
import { FramePipe, PipeError } from './frames.js';
import { describe, serve } from './workerLoop.js';

let status: number;
try {
  status = await serve(new FramePipe());
} catch (error) {
  const pipeFailed = error instanceof PipeError;
  process.stderr.write(`flink worker: ${pipeFailed ? describe(error) : String((error as Error).stack)}\n`);
  status = 1;
}
process.exit(status);
