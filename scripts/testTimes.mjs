#!/usr/bin/env node
// The slowest test files of a run, from vitest's JSON report, as a Markdown table; with a second
// report, both side by side (docs/testing.md's table comes from this). A file is matched across
// the two by its path; one renamed or split is listed under its own name in each.
//
//   npx vitest run --reporter=default --reporter=json --outputFile.json=after.json
//   node scripts/testTimes.mjs after.json [before.json] [--top 20]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 20;
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
if (beforeFile === undefined) {
  console.log('| file | s |\n| --- | ---: |');
  for (const [file, s] of after.ranked.slice(0, top)) console.log(`| \`${file}\` | ${fmt(s)} |`);
  console.log(`\n${after.files} files, ${after.tests} tests, ${fmt(after.sum)} s summed over the files`);
} else {
  const before = read(beforeFile);
  console.log(`The ${top} slowest before, and where they are now:\n`);
  console.log('| file | before, s | after, s |\n| --- | ---: | ---: |');
  for (const [file, s] of before.ranked.slice(0, top))
    console.log(`| \`${file}\` | ${fmt(s)} | ${fmt(after.seconds.get(file))} |`);
  console.log(`\nThe ${top} slowest after:\n`);
  console.log('| file | after, s | before, s |\n| --- | ---: | ---: |');
  for (const [file, s] of after.ranked.slice(0, top))
    console.log(`| \`${file}\` | ${fmt(s)} | ${fmt(before.seconds.get(file))} |`);
  console.log(
    `\nBefore: ${before.files} files, ${before.tests} tests, ${fmt(before.sum)} s summed. ` +
      `After: ${after.files} files, ${after.tests} tests, ${fmt(after.sum)} s summed.`,
  );
}
