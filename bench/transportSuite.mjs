// The transport suite (`--only transport`): bench/micro/threadTransport.mjs in a child process
// of its own, and its docs section. How batches of channel items move between two worker
// threads: structured clone, encoded bytes transferred, a SharedArrayBuffer ring, and the port
// modes drained with receiveMessageOnPort. See the "Cross-thread transport" method in
// docs/benchmarks.md.
import { join } from 'node:path';
import { BENCH_DIR } from './data.mjs';
import { runTimed } from './engineRun.mjs';

const SCRIPT = join(BENCH_DIR, 'micro', 'threadTransport.mjs');

const MODE_LABELS = {
  clone: "(a) structured clone of the envelopes, 'message' events",
  bytes: "(b) encoded bytes, ArrayBuffer transferred, 'message' events",
  ring: '(c) encoded bytes through a SharedArrayBuffer ring, Atomics.waitAsync',
  'clone-poll': '(d) structured clone, drained with receiveMessageOnPort',
  'bytes-poll': '(d) encoded bytes transferred, drained with receiveMessageOnPort',
};

/** Runs the micro-benchmark: { records, rounds, inflight, rows } or { error }. */
export async function transportSuite({ quick, log }) {
  const records = quick ? 100_000 : 300_000;
  log(
    `cross-thread transport: best of 5 rounds of ${records.toLocaleString('en-US')} records per mode and batch size`,
  );
  const res = await runTimed(process.execPath, [SCRIPT, '--records', String(records), '--rounds', '5']);
  if (res.code !== 0)
    return { error: res.stderr.trim().split('\n').slice(0, 3).join(' | ') || `exit ${res.code}` };
  let result;
  try {
    result = JSON.parse(res.stdout.trim().split('\n').pop());
  } catch {
    return { error: `no result line from ${SCRIPT}: ${res.stdout.slice(-200)}` };
  }
  for (const r of result.rows) {
    log(
      `  ${r.mode}, batch ${r.batch}: ${r.recordsPerSec.toLocaleString('en-US')} records/s, ${r.mbPerSec} MB/s ` +
        `(busy: producer ${r.producerBusy}, consumer ${r.consumerBusy})`,
    );
  }
  return result;
}

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');

/** The docs section (its title starts with "### Cross-thread transport", as SECTION_SUITES knows it). */
export function transportReport(t) {
  const L = ['### Cross-thread transport: batches of record envelopes between two worker threads', ''];
  if (t.error) return [...L, `**Not measured:** ${t.error}`, ''];
  L.push(
    `Best of ${t.rounds} rounds of ${fmtInt(t.records)} records each, at most ${fmtInt(t.inflight)} records in flight; ` +
      '`bench/micro/threadTransport.mjs`.',
  );
  L.push('');
  L.push(
    '| transport | batch | records/s (best) | vs (a) | MB/s | bytes/record on the wire | producer busy | consumer busy | runs ms |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of t.rows) {
    const clone = t.rows.find((x) => x.mode === 'clone' && x.batch === r.batch);
    L.push(
      `| ${MODE_LABELS[r.mode] ?? r.mode} | ${r.batch} | **${fmtInt(r.recordsPerSec)}** | ` +
        `${clone ? `${(r.recordsPerSec / clone.recordsPerSec).toFixed(2)}×` : ''} | ${r.mbPerSec} | ` +
        `${r.wireBytesPerRecord} | ${Math.round(r.producerBusy * 100)}% | ${Math.round(r.consumerBusy * 100)}% | ` +
        `${r.runsMs.join(' / ')} |`,
    );
  }
  L.push('');
  if (t.codec?.length) {
    L.push(
      '| each side alone, on one thread (ns per record) | batch | make the message | take it apart, with the work |',
    );
    L.push('| --- | ---: | ---: | ---: |');
    for (const c of t.codec) {
      L.push(`| structured clone (V8's serializer) | ${c.batch} | ${c.cloneEncodeNs} | ${c.cloneDecodeNs} |`);
      L.push(`| encoded bytes (compact JSON) | ${c.batch} | ${c.bytesEncodeNs} | ${c.bytesDecodeNs} |`);
    }
    L.push('');
  }
  L.push(
    "MB/s: records/s × the bytes a record takes in that transport's own form (V8's serializer for structured clone, " +
      "the compact JSON for the others). Busy: the share of the best round each worker's event loop was not idle " +
      '(`performance.eventLoopUtilization()`); the side near 100% is the limit.',
  );
  L.push('');
  return L;
}
