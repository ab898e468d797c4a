// The cells a suite's table in docs/benchmarks.md writes its rows with, alike in every suite
// that reports rows of run.mjs's measure().

export const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
export const fmtS = (ms) => (ms / 1000).toFixed(2);
export const fmtMiB = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
/** A ratio, bold; empty when it was not measured. */
export const fmtX = (x) => (x ? `**${x.toFixed(2)}×**` : '');
/** A row's output column: its failure (pipes escaped for the table), ok, or a dash when it did not run. */
export const failedCell = (r) =>
  r.error ? `FAILED: ${r.error.replaceAll('|', '\\|')}` : r.times.length ? 'ok' : '—';
