#!/usr/bin/env node
// The functions a V8 CPU profile (`node --cpu-prof`) spent most self time in, as a Markdown table.
//   node bench/cpuProfileTop.mjs PROFILE.cpuprofile [--top 15]
// Self time is the samples whose top frame is the function (summed over every call site of the same
// function, url and line), times the mean sampling interval; "total" counts a sample once for each
// function anywhere on its stack, so the callers of the hot code show up there.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 15;
if (!file) {
  console.error('usage: node bench/cpuProfileTop.mjs PROFILE.cpuprofile [--top N]');
  process.exit(1);
}

const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const where = (cf) => {
  const url = cf.url.replace(/^file:\/\//, '');
  const path = url ? relative(process.cwd(), url) : '';
  return `${cf.functionName || '(anonymous)'} ${path ? `${path}:${cf.lineNumber + 1}` : ''}`.trim();
};

const samples = new Map();
for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1);
const total = profile.samples.length;
const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, total);

const self = new Map();
const inclusive = new Map();
for (const [id, count] of samples) {
  const name = where(byId.get(id).callFrame);
  self.set(name, (self.get(name) ?? 0) + count);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const n = where(byId.get(at).callFrame);
    if (seen.has(n)) continue;
    seen.add(n);
    inclusive.set(n, (inclusive.get(n) ?? 0) + count);
  }
}

const pct = (n) => `${((100 * n) / total).toFixed(1)}%`;
console.log(`${file}: ${total} samples, ${((total * msPerSample) / 1000).toFixed(2)} s`);
console.log('');
console.log('| function | self | total |');
console.log('| --- | ---: | ---: |');
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`| \`${name}\` | ${pct(count)} | ${pct(inclusive.get(name) ?? 0)} |`);
}
