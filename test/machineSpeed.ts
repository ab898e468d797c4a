// Work sized to the machine a test runs on. A test whose premise is "this operator stays busy for
// seconds" cannot use a fixed loop count: a fast idle machine gets through it too soon, and the
// premise fails there, not on a slow one. So it asks how many iterations of its loop take a
// given time here when nothing else runs (the fastest of a few tries: other work only ever slows
// a loop down), and a loaded machine then only makes the run longer.

/** The arithmetic the tests' slow operators do per iteration (kept in step with their code). */
function sqrtLoop(iterations: number, seed: number): number {
  let x = 0;
  for (let j = 0; j < iterations; j++) x += Math.sqrt(j + seed);
  return x;
}

/** Iterations of `x += Math.sqrt(j + i)` that take about `ms` on this machine, unloaded. */
export function sqrtIterationsFor(ms: number): number {
  const probe = 2_000_000;
  let fastestMs = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = performance.now();
    sink += sqrtLoop(probe, attempt);
    fastestMs = Math.min(fastestMs, performance.now() - started);
  }
  // The sum is used, so the loop cannot be left out.
  if (Number.isNaN(sink)) throw new Error('unreachable');
  return Math.max(1, Math.round((probe * ms) / Math.max(fastestMs, 0.01)));
}
