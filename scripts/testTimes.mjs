#!/usr/bin/env node
// The slowest test files of a run, from vitest's JSON report, as a Markdown table; with a second
// report, both side by side (docs/testing.md's table comes from this). A file is matched across
// the two by its path, or else by its name (a file moved to another folder); one that became a
// soak test (`x.test.ts` → `x.soak.test.ts`) is shown with its time in the soak run's report.
//
//   npx vitest run --reporter=default --reporter=json --outputFile.json=after.json
//   node scripts/testTimes.mjs after.json [before.json] [--soak soak.json] [--top 20]
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 20;
const soakAt = args.indexOf('--soak');
const soakFile = soakAt >= 0 ? args.splice(soakAt, 2)[1] : undefined;
const [afterFile, beforeFile] = args;
if (afterFile === undefined) {
  process.stderr.write('usage: node scripts/testTimes.mjs REPORT.json [BEFORE.json] [--top N]\n');
  process.exit(2);
}

/** Seconds per file, slowest first, and the report's own figures. */
function read(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const root = report.testResults.reduce((prefix, t) => {
    let p = prefix ?? t.name;
    while (!t.name.startsWith(p)) p = p.slice(0, -1);
    return p;
  }, undefined);
  const seconds = new Map(
    report.testResults.map((t) => [relative(root, t.name), (t.endTime - t.startTime) / 1000]),
  );
  const sum = [...seconds.values()].reduce((a, b) => a + b, 0);
  const ranked = [...seconds].sort((a, b) => b[1] - a[1]);
  return { seconds, ranked, sum, files: seconds.size, tests: report.numTotalTests };
}

const fmt = (s) => (s === undefined ? '—' : s.toFixed(1));
const after = read(afterFile);
const soak = soakFile === undefined ? undefined : read(soakFile);

const nameOf = (file) => file.split('/').pop();
/** Where a file of one report went in another: its path, or the one file there of its name. */
function counterpart(file, report) {
  if (report.seconds.has(file)) return { file, s: report.seconds.get(file) };
  const same = [...report.seconds.keys()].filter((f) => nameOf(f) === nameOf(file));
  return same.length === 1 ? { file: same[0], s: report.seconds.get(same[0]) } : undefined;
}
/** A before file's time now: in npm test, or (moved to the soak tier) in the soak run. */
function now(file) {
  const moved = counterpart(file, after);
  if (moved !== undefined) return moved.file === file ? fmt(moved.s) : `${fmt(moved.s)} (\`${moved.file}\`)`;
  const soakName = file.replace(/\.test\.ts$/, '.soak.test.ts');
  const inSoak = soak === undefined ? undefined : counterpart(soakName, soak);
  if (inSoak !== undefined) return `soak tier (${fmt(inSoak.s)} there)`;
  return existsSync(soakName) ? 'soak tier' : '—';
}
if (beforeFile === undefined) {
  console.log('| file | s |\n| --- | ---: |');
  for (const [file, s] of after.ranked.slice(0, top)) console.log(`| \`${file}\` | ${fmt(s)} |`);
  console.log(`\n${after.files} files, ${after.tests} tests, ${fmt(after.sum)} s summed over the files`);
} else {
  const before = read(beforeFile);
  console.log(`The ${top} slowest before, and where they are now:\n`);
  console.log('| file | before, s | after, s |\n| --- | ---: | ---: |');
  for (const [file, s] of before.ranked.slice(0, top))
    console.log(`| \`${file}\` | ${fmt(s)} | ${now(file)} |`);
  console.log(`\nThe ${top} slowest after:\n`);
  console.log('| file | after, s | before, s |\n| --- | ---: | ---: |');
  for (const [file, s] of after.ranked.slice(0, top))
    console.log(`| \`${file}\` | ${fmt(s)} | ${fmt(counterpart(file, before)?.s)} |`);
  console.log(
    `\nBefore: ${before.files} files, ${before.tests} tests, ${fmt(before.sum)} s summed. ` +
      `After: ${after.files} files, ${after.tests} tests, ${fmt(after.sum)} s summed.`,
  );
}
