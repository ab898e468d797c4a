// What the README and docs/ state that a program can check: the command line the README shows is
// the CLI's own, the figures of "Five minutes with owner-has-items" are what a run of the
// example gives, and every link between the documents reaches a file and a heading that exist.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_KINDS } from '../engine/graph/kinds/builtinKinds.js';
import { copyExample, describeRun, readJsonl, removeTempDirs, repoRoot, runCli } from './cliHarness.js';

afterAll(removeTempDirs);

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The text of the README from a `## heading` to the next one. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `the README has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The first number after `before` in `text`. */
function numberAfter(text: string, before: string): number {
  const at = text.indexOf(before);
  expect(at, `"${before}" is in the text`).toBeGreaterThanOrEqual(0);
  return Number(/\d[\d,]*/.exec(text.slice(at + before.length))![0].replaceAll(',', ''));
}

describe('the command line in the README', () => {
  it('is the synopsis `pipewright --help` prints', async () => {
    const help = await runCli(['--help']);
    const synopsis = help.stdout.split('\n\n')[0]!.replace(/^Usage:\n/, '');
    const block = /```\n(pipewright run[^`]*)```/.exec(section('The command line'))![1]!;
    const lines = (text: string) => text.split('\n').filter((l) => l !== '');
    // The help indents its synopsis by two spaces.
    expect(lines(block)).toEqual(lines(synopsis).map((l) => l.replace(/^ {2}/, '')));
  });

  it('names every option of run and validate', async () => {
    const cli = section('The command line');
    for (const command of ['run', 'validate']) {
      const usage = (await runCli([command, '--help'])).stdout;
      for (const option of usage.match(/--[a-z-]+/g) ?? []) expect(cli, option).toContain(option);
    }
  });
});

describe('"Five minutes with owner-has-items"', () => {
  it('gives the figures a run of the example gives', async () => {
    const text = section('Five minutes with owner-has-items');
    const { dir, jobPath } = await copyExample('owner-has-items');
    const result = await runCli(['run', jobPath, '--threads', '1', '--metrics', 'out/metrics.jsonl'], {
      cwd: dir,
    });
    expect(result.code, describeRun(result)).toBe(0);

    const events = await readJsonl(path.join(dir, 'events.jsonl'));
    const output = readFileSync(path.join(dir, 'out', 'ownership.jsonl'), 'utf8').split('\n');
    expect(numberAfter(text, 'The job: ')).toBe(events.length);
    expect(numberAfter(result.stdout, 'done: job "owner-has-items", ')).toBe(events.length);
    expect(numberAfter(text, 'done: job "owner-has-items", ')).toBe(events.length);
    // The sample line is the one the CLI prints, word for word; only the figures may differ.
    const printed = result.stdout.trimEnd().split('\n').at(-1)!;
    const sample = /`(done: [^`]*)`/.exec(text)![1]!.replace(/\s+/g, ' ');
    const shape = (line: string) => line.replace(/\d[\d,.]*/g, '#');
    expect(shape(sample), printed).toBe(shape(printed));
    expect(numberAfter(text, 'ownership.jsonl` (')).toBe(output.filter((l) => l !== '').length);
    for (const line of /```\n(\{"event"[^`]*)```/.exec(text)![1]!.split('\n')) {
      if (line.startsWith('{')) expect(output, line).toContain(line);
    }

    const metrics = await readJsonl<{
      final?: boolean;
      operators: { id: string; recordsIn: number; recordsOut: number; [k: string]: unknown }[];
    }>(path.join(dir, 'out', 'metrics.jsonl'));
    const last = metrics.at(-1)!;
    expect(last.final).toBe(true);
    const shown = /`out\/metrics\.jsonl` holds[^`]*```\n([^`]*)```/.exec(text)![1]!;
    const owners = last.operators.find((o) => o.id === 'owners')!;
    const ownersShown = shown.slice(shown.indexOf('"id":"owners"'));
    for (const field of ['recordsIn', 'recordsOut', 'stateEntries', 'stateBytes', 'stateKeys']) {
      expect(numberAfter(ownersShown, `"${field}":`), field).toBe(owners[field]);
    }
    const subtask0 = (owners.subtasks as Record<string, number>[])[0]!;
    const subtaskShown = ownersShown.slice(ownersShown.indexOf('"subtask":0'));
    for (const field of ['recordsIn', 'recordsOut', 'stateEntries']) {
      expect(numberAfter(subtaskShown, `"${field}":`), `subtask 0 ${field}`).toBe(subtask0[field]);
    }
    const out = last.operators.find((o) => o.id === 'out')!;
    expect(numberAfter(shown.slice(shown.indexOf('"id":"out"')), '"recordsIn":')).toBe(out.recordsIn);

    const moves = events.filter((e) => (e as { type: string }).type === 'move').length;
    expect(numberAfter(text, '`owners` took in ')).toBe(owners.recordsIn);
    expect(numberAfter(text, 'events and ')).toBe(moves);
    expect(numberAfter(text, 'It holds ')).toBe(owners.stateEntries);
    expect(numberAfter(text, 'once per state they hold: ')).toBe(owners.stateKeys);
  });
});

describe("owner-has-items-tx's description", () => {
  it("says how its events.jsonl differs from owner-has-items's", () => {
    const lines = (example: string) =>
      readFileSync(path.join(repoRoot, 'assets', 'examples', example, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
    const base = lines('owner-has-items');
    const tx = lines('owner-has-items-tx');
    const job = JSON.parse(
      readFileSync(
        path.join(repoRoot, 'assets', 'examples', 'owner-has-items-tx', 'owner-has-items-tx.job.json'),
        'utf8',
      ),
    ) as { description: string };
    // Its file is the other's, then the events only it has; the description counts those.
    expect(tx.slice(0, base.length)).toEqual(base);
    const extra = tx.length - base.length;
    const words = ['no', 'one', 'two', 'three'];
    if (extra === 0) expect(job.description).toMatch(/the same events\.jsonl/);
    else expect(job.description).toContain(`plus ${words[extra] ?? extra} `);
  });
});

describe('docs/connectors.md', () => {
  it('speaks of kinds "(not in this version)" only while a built-in kind is one', () => {
    const text = readFileSync(path.join(repoRoot, 'docs', 'connectors.md'), 'utf8');
    const unavailable = BUILTIN_KINDS.filter((kind) => !kind.available).map((kind) => kind.kind);
    if (unavailable.length === 0) expect(text).not.toContain('not in this version');
    for (const kind of unavailable) expect(text, kind).toContain(kind);
  });
});

describe('links between the documents', () => {
  const documents = [
    'README.md',
    ...readdirSync(path.join(repoRoot, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
  function anchors(file: string): Set<string> {
    const text = readFileSync(path.join(repoRoot, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    return new Set(
      [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replaceAll(' ', '-'),
      ),
    );
  }

  it.each(documents)('%s links only to files and headings that exist', (file) => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [where, anchor] = target!.split('#') as [string, string | undefined];
      const linked = where === '' ? file : path.posix.join(path.posix.dirname(file), where);
      expect(() => readFileSync(path.join(repoRoot, linked)), `${file} links to ${linked}`).not.toThrow();
      if (anchor !== undefined) expect([...anchors(linked)], `${file} links to ${target}`).toContain(anchor);
    }
  });
});
