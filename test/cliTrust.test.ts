// Job files from strangers, through the real CLI (docs/security.md): `pipewright run` refuses a job
// that is not trusted when it would name a file outside its folder (read or written, through a
// link too) or read an environment variable, in one line saying what it would do and how to
// trust it, with nothing written; `--trust`, a trusted folder in trusted.json, or the text the
// designer trusted lets it run. A job that stays in its folder and reads no variable runs as ever.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CliResult,
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from './cliHarness.js';

afterAll(removeTempDirs);

const BASHRC = 'alias ll="ls -l"\n';
/** How trusted.json records a job's text (docs/security.md). */
const contentHash = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
const SECRET_VAR = 'PIPEWRIGHT_TEST_TRUST_SECRET';
const SECRET = 's3cret-trust-token';

/** A home folder with a .bashrc, a folder of downloaded jobs beside it, and a data folder for trusted.json. */
interface Place {
  readonly home: string;
  readonly bashrc: string;
  readonly jobs: string;
  readonly data: string;
}

let place: Place;

beforeEach(async () => {
  const root = await makeTempDir('pipewright-trust-');
  const home = path.join(root, 'home');
  const jobs = path.join(root, 'Downloads', 'job');
  await mkdir(home, { recursive: true });
  await mkdir(jobs, { recursive: true });
  const bashrc = path.join(home, '.bashrc');
  await writeFile(bashrc, BASHRC);
  await writeFile(path.join(jobs, 'in.jsonl'), '{"n":1}\n{"n":2}\n');
  place = { home, bashrc, jobs, data: path.join(root, 'data') };
});

function job(operators: JobDocument[]): JobDocument {
  const [first, ...rest] = operators;
  return {
    format: 'pipewright.job/1',
    name: 'stranger',
    operators,
    edges: rest.map((op, i) => ({
      id: `e${i}`,
      from: i === 0 ? first!.id : operators[i]!.id,
      to: op.id,
      partition: 'rebalance',
    })),
  };
}

const source = (path = 'in.jsonl') => ({ id: 'in', kind: 'source.jsonl', params: { path } });
const sink = (path: string) => ({ id: 'out', kind: 'sink.jsonl', params: { path } });
const leak = (code = `function map(r) { return { ...r, token: '\${env:${SECRET_VAR}}' }; }`) => ({
  id: 'leak',
  kind: 'map',
  params: { code },
});

async function write(document: JobDocument): Promise<string> {
  const file = path.join(place.jobs, 'stranger.job.json');
  await writeJob(file, document);
  return file;
}

function run(file: string, ...flags: string[]): Promise<CliResult> {
  return runCli(['run', file, '--quiet', ...flags], {
    env: { ...process.env, PIPEWRIGHT_DATA_DIR: place.data, [SECRET_VAR]: SECRET },
  });
}

/** The one line a refusal is, checked for what it must say. */
function expectRefusal(result: CliResult, file: string, doing: RegExp[]): void {
  expect(result.code, describeRun(result)).toBe(1);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, describeRun(result)).toHaveLength(1);
  const line = lines[0]!;
  expect(line).toMatch(
    new RegExp(`^pipewright: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not trusted, and it would `),
  );
  for (const pattern of doing) expect(line).toMatch(pattern);
  expect(line).toContain('run it with --trust');
  expect(line).toContain(`"folders" in ${path.join(place.data, 'trusted.json')}`);
  expect(line).not.toContain(SECRET);
  expect(result.stdout).toBe('');
}

describe('pipewright run refuses a job that is not trusted', () => {
  it('when a sink would write outside its folder (a relative path that climbs out), leaving the file as it was', async () => {
    const file = await write(job([source(), sink('../../home/.bashrc')]));
    const result = await run(file);
    expectRefusal(result, file, [
      new RegExp(`write ${place.bashrc} outside its folder \\(operator "out"\\)`),
    ]);
    expect(await readFile(place.bashrc, 'utf8')).toBe(BASHRC);
  });

  it('when a sink names an absolute path outside its folder', async () => {
    const file = await write(job([source(), sink(path.join(place.home, 'new.jsonl'))]));
    expectRefusal(await run(file), file, [/write .*home\/new\.jsonl outside its folder/]);
    expect(existsSync(path.join(place.home, 'new.jsonl'))).toBe(false);
  });

  it('when a link in its folder leads the sink out', async () => {
    await symlink(place.bashrc, path.join(place.jobs, 'out.jsonl'));
    const file = await write(job([source(), sink('out.jsonl')]));
    expectRefusal(await run(file), file, [new RegExp(`write ${place.bashrc} outside its folder`)]);
    expect(await readFile(place.bashrc, 'utf8')).toBe(BASHRC);
  });

  it('when a source would read a file outside its folder', async () => {
    const file = await write(job([source(place.bashrc), sink('out.jsonl')]));
    expectRefusal(await run(file), file, [
      new RegExp(`read ${place.bashrc} outside its folder \\(operator "in"\\)`),
    ]);
    expect(existsSync(path.join(place.jobs, 'out.jsonl'))).toBe(false);
  });

  it('when it reads an environment variable, as a connector URL or inside code, naming each thing it would do', async () => {
    const redis = {
      id: 'cache',
      kind: 'sink.redis',
      params: { url: `redis://:\${env:${SECRET_VAR}}@127.0.0.1:1`, stream: 's' },
    };
    const file = await write(job([source(), leak(), redis]));
    expectRefusal(await run(file), file, [
      new RegExp(
        `read the environment variable ${SECRET_VAR} \\(operator "leak"\\) and read the environment variable ${SECRET_VAR} \\(operator "cache"\\)`,
      ),
    ]);
  });

  it('counts what it does not name', async () => {
    const operators = [
      source('/etc/hostname'),
      ...[1, 2, 3, 4].map((i) => leak(`function map(r) { return '\${env:V${i}}'; }`)),
    ];
    const file = await write(job(operators.map((op, i) => (i === 0 ? op : { ...op, id: `m${i}` }))));
    expectRefusal(await run(file), file, [/\(operator "m2"\) and 2 more: if you trust it/]);
  });
});

describe('a job that is trusted runs', () => {
  it('with --trust: the sink writes where it says, the variable is read', async () => {
    const outside = path.join(place.home, 'out.jsonl');
    const file = await write(job([source(), leak(), sink(outside)]));
    const result = await run(file, '--trust');
    expect(result.code, describeRun(result)).toBe(0);
    expect(await readFile(outside, 'utf8')).toContain(SECRET);
  });

  it('in a folder listed in trusted.json', async () => {
    const file = await write(job([source(), leak(), sink('out.jsonl')]));
    await mkdir(place.data, { recursive: true });
    await writeFile(
      path.join(place.data, 'trusted.json'),
      JSON.stringify({ folders: [path.dirname(place.jobs)] }),
    );
    const result = await run(file);
    expect(result.code, describeRun(result)).toBe(0);
    expect(await readFile(path.join(place.jobs, 'out.jsonl'), 'utf8')).toContain(SECRET);
  });

  it('as the designer trusted its text, and not once someone else has changed it', async () => {
    const file = await write(job([source(), leak(), sink('out.jsonl')]));
    await mkdir(place.data, { recursive: true });
    const trust = (text: string) =>
      writeFile(
        path.join(place.data, 'trusted.json'),
        JSON.stringify({ jobs: { [file]: contentHash(text) } }),
      );
    await trust(await readFile(file, 'utf8'));
    const result = await run(file);
    expect(result.code, describeRun(result)).toBe(0);

    await write(job([source(), leak(), sink('../../home/.bashrc')]));
    expectRefusal(await run(file), file, [/write .*\.bashrc outside its folder/]);
    expect(await readFile(place.bashrc, 'utf8')).toBe(BASHRC);
  });

  it('not by a damaged trusted.json, which is said in a line of its own', async () => {
    const file = await write(job([source(), leak(), sink('out.jsonl')]));
    await mkdir(place.data, { recursive: true });
    await writeFile(path.join(place.data, 'trusted.json'), '{"folders": [');
    const result = await run(file);
    expect(result.code, describeRun(result)).toBe(1);
    const [warning, refusal, ...rest] = result.stderr.trimEnd().split('\n');
    expect(warning).toMatch(
      /^pipewright: cannot read .*trusted\.json: .* \(it trusts no job until it is fixed\)$/,
    );
    expect(refusal).toMatch(/is not trusted, and it would read the environment variable/);
    expect(rest).toEqual([]);
  });
});

describe('a job that stays in its folder and reads no variable', () => {
  it('runs as before, without --trust and without a trusted.json', async () => {
    const file = await write(job([source('./in.jsonl'), sink('out/out.jsonl')]));
    const result = await run(file);
    expect(result.code, describeRun(result)).toBe(0);
    expect(await readFile(path.join(place.jobs, 'out', 'out.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(existsSync(place.data)).toBe(false);
  });
});
