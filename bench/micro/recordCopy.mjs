#!/usr/bin/env node
// Micro-benchmark: what copying an emitted record as JSON costs, by each way of doing it, on a
// typical small record (engine/runtime/recordCopy.ts chose by these figures). Prints one JSON
// object on stdout per record shape, CPU nanoseconds per record, best of 9 rounds of N copies:
//   { nested: { walkNs, stringifyParseNs, structuredCloneNs, stringifyNs }, flat: { ... } }
// nested: 6 fields, one a 3-element array of 2 objects and a string, one an object of 2 fields;
// flat: { k, n, sum }, as the keyed benchmarks emit.
// - walkNs: recordCopy() from the compiled engine (dist/engine/runtime/recordCopy.js, or the
//   path given as the second argument), the checked copy ctx.emit makes.
// - stringifyParseNs: JSON.parse(JSON.stringify(r)), which checks less and locates nothing.
// - structuredCloneNs: structuredClone(r), which keeps Maps and BigInts (not a JSON copy).
// - stringifyNs: JSON.stringify(r) alone, what the JSONL sink pays per record anyway.
// Usage: node bench/micro/recordCopy.mjs [N] [path/to/recordCopy.js]
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const N = Number(process.argv[2] ?? 1_000_000);
const here = dirname(fileURLToPath(import.meta.url));
const modulePath = process.argv[3] ?? join(here, '../../dist/engine/runtime/recordCopy.js');
const { recordCopy } = await import(pathToFileURL(modulePath).href);
// The engine copies records after SES lockdown(), which freezes the intrinsics: measure there.
const { ensureLockdown } = await import(
  pathToFileURL(join(dirname(modulePath), '../sandbox/lockdown.js')).href
);
ensureLockdown();

const nested = [];
const flat = [];
for (let i = 0; i < 64; i++) {
  flat.push({ k: `k${i % 17}`, n: i, sum: i * 2.5 });
  nested.push({
    id: `order-${i}`,
    customer: `c${i % 7}`,
    amount: 12.5 + i,
    paid: i % 2 === 0,
    items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }, 'gift'],
    address: { city: 'Lyon', zip: '69001' },
  });
}

const where = () => 'bench';
const ways = {
  walkNs: (r) => recordCopy(r, where),
  stringifyParseNs: (r) => JSON.parse(JSON.stringify(r)),
  structuredCloneNs: (r) => structuredClone(r),
  stringifyNs: (r) => JSON.stringify(r),
};

function measure(copy, records) {
  // A fresh loop per way, so each call site stays monomorphic.
  const loop = new Function(
    'copy',
    'records',
    'n',
    'let k = 0; for (let i = 0; i < n; i++) { if (copy(records[i & 63]) === undefined) k++; } return k;',
  );
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 9; round++) {
    // CPU time, not wall time: on a shared machine the wall clock also counts other processes.
    const t0 = process.cpuUsage();
    if (loop(copy, records, N) === -1) console.error('unreachable');
    const used = process.cpuUsage(t0);
    const ns = ((used.user + used.system) * 1e3) / N;
    if (ns < best) best = ns;
  }
  return Number(best.toFixed(1));
}

const result = { nested: {}, flat: {} };
for (const [name, copy] of Object.entries(ways)) {
  result.nested[name] = measure(copy, nested);
  result.flat[name] = measure(copy, flat);
}
console.log(JSON.stringify(result));
