// Each command's own help, usage errors in one line of the CLI's words, and a job file that is not
// there said as such, through the real CLI (issue 11, item 13).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, makeTempDir, removeTempDirs, runCli } from './cliHarness.js';

afterAll(removeTempDirs);

describe('help', () => {
  it.each([
    ['run', '--help'],
    ['run', '-h'],
    ['help', 'run'],
  ])('`%s %s` prints the usage of run alone', async (...args) => {
    const result = await runCli(args);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(/^Usage: pipewright run JOB\.job\.json/);
    for (const option of [
      '--state-dir',
      '--checkpoint-dir',
      '--restore',
      '--threads',
      '--metrics',
      '--quiet',
    ]) {
      expect(result.stdout).toContain(option);
    }
    expect(result.stdout).toMatch(/Ctrl-C/);
    expect(result.stdout).not.toMatch(/pipewright validate|--json/);
  });

  it.each([
    ['validate', '--help'],
    ['validate', '-h'],
    ['help', 'validate'],
  ])('`%s %s` prints the usage of validate alone', async (...args) => {
    const result = await runCli(args);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(/^Usage: pipewright validate JOB\.job\.json \[--json\]/);
    expect(result.stdout).toContain('--json');
    expect(result.stdout).not.toMatch(/pipewright run|--state-dir/);
  });
});

describe('exit statuses', () => {
  // A shell script that asks `$?` after Ctrl-C gets 130 from either command: the help that
  // lists the statuses lists that one too.
  it.each(['--help', 'run --help', 'validate --help'])(
    '`pipewright %s` lists 130 among the exit statuses',
    async (line) => {
      const result = await runCli(line.split(' '));
      expect(result.code, describeRun(result)).toBe(0);
      const statuses = result.stdout.slice(result.stdout.indexOf('Exit status:'));
      expect(statuses, result.stdout).toMatch(/^Exit status: 0 /);
      expect(statuses).toMatch(/\b130 (stopped at once|interrupted)/);
    },
  );
});

describe('usage errors', () => {
  it('an unknown option is named in one line, followed by the usage of its command (exit 2)', async () => {
    const result = await runCli(['run', 'x.job.json', '--bogus']);
    expect(result.code, describeRun(result)).toBe(2);
    const [first, ...rest] = result.stderr.split('\n');
    expect(first).toBe('pipewright: unknown option --bogus');
    expect(rest.join('\n')).toMatch(/^Usage: pipewright run /);
    expect(result.stderr).not.toContain("'");
  });

  it("an option of run given to validate is unknown there, and validate's usage follows", async () => {
    const result = await runCli(['validate', 'x.job.json', '--state-dir', 'd']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toMatch(/^pipewright: unknown option --state-dir\nUsage: pipewright validate /);
  });

  it('an option without its value says what value it takes, also when another option follows', async () => {
    for (const args of [
      ['run', 'x.job.json', '--metrics'],
      ['run', 'x.job.json', '--metrics', '--quiet'],
    ]) {
      const result = await runCli(args);
      expect(result.code, describeRun(result)).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe('pipewright: --metrics needs a value: --metrics FILE');
    }
  });

  it('a value given to a switch is refused', async () => {
    const result = await runCli(['run', 'x.job.json', '--quiet=yes']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('pipewright: --quiet takes no value');
  });
});

describe('--threads', () => {
  it.each([['0'], ['x'], ['1.5'], ['-1'], ['1e3'], ['']])(
    '`--threads %j` is refused in one line saying what it takes, and the usage of run follows (exit 2)',
    async (value) => {
      for (const args of [
        ['run', 'x.job.json', '--threads', value],
        ['run', 'x.job.json', `--threads=${value}`],
      ]) {
        const result = await runCli(args);
        expect(result.code, describeRun(result)).toBe(2);
        const [first, ...rest] = result.stderr.split('\n');
        expect(first).toBe(
          `pipewright: --threads takes a whole number of threads, 1 or more, not "${value}"`,
        );
        expect(rest.join('\n')).toMatch(/^Usage: pipewright run /);
      }
    },
  );

  it('without its value says what value it takes, also when another option follows', async () => {
    for (const args of [
      ['run', 'x.job.json', '--threads'],
      ['run', 'x.job.json', '--threads', '--quiet'],
    ]) {
      const result = await runCli(args);
      expect(result.code, describeRun(result)).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe('pipewright: --threads needs a value: --threads N');
    }
  });

  it('is an option of run only', async () => {
    const result = await runCli(['validate', 'x.job.json', '--threads', '2']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('pipewright: unknown option --threads');
  });

  it('runs the job at 1 and at 2 threads, the same records either way', async () => {
    const dir = await makeTempDir('pipewright-usage-');
    await writeFile(path.join(dir, 'job.json'), JSON.stringify(keyedCountJob()));
    const outputs: string[][] = [];
    for (const threads of ['1', '2']) {
      const result = await runCli(['run', 'job.json', '--threads', threads, '--quiet'], { cwd: dir });
      expect(result.code, describeRun(result)).toBe(0);
      expect(result.stderr).toBe('');
      outputs.push((await readFile(path.join(dir, 'out.jsonl'), 'utf8')).split('\n').sort());
    }
    expect(outputs[0]).toHaveLength(41); // 40 records and the empty string after the last newline
    expect(outputs[1]).toEqual(outputs[0]);
  });

  it('a job whose settings.threads is 0 is invalid: one line naming the field (exit 1)', async () => {
    const dir = await makeTempDir('pipewright-usage-');
    const job = { ...keyedCountJob(), settings: { threads: 0 } };
    await writeFile(path.join(dir, 'job.json'), JSON.stringify(job));
    for (const command of ['run', 'validate']) {
      const result = await runCli([command, 'job.json'], { cwd: dir });
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr.split('\n')[0]).toBe(
        'pipewright: job.json: settings.threads must be at least 1 (got 0) ($.settings.threads)',
      );
    }
  });
});

/**
 * A generator, keyed to a counting process at parallelism 2, rebalanced to one sink. One source
 * subtask, so each key's records reach their counter in one order on any number of threads.
 */
function keyedCountJob() {
  return {
    format: 'pipewright.job/1',
    name: 't',
    operators: [
      {
        id: 'src',
        kind: 'source.generator',
        params: { code: 'function generate(i) { return { i, k: i % 5 }; }', count: 40 },
      },
      {
        id: 'count',
        kind: 'process',
        parallelism: 2,
        params: {
          code: 'function process(r, ctx) { const n = (ctx.state.value("n").get() ?? 0) + 1; ctx.state.value("n").set(n); ctx.emit({ ...r, n }); }',
        },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
}

describe('a job file that cannot be read', () => {
  it.each(['run', 'validate'])('`%s` says so in one line naming the file (exit 1)', async (command) => {
    const dir = await makeTempDir('pipewright-usage-');
    const result = await runCli([command, 'missing.job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toBe('pipewright: cannot read missing.job.json: no such file\n');
    expect(result.stdout).toBe('');
  });

  it('a folder in its place is named as one', async () => {
    const dir = await makeTempDir('pipewright-usage-');
    await mkdir(path.join(dir, 'folder.job.json'));
    const result = await runCli(['run', 'folder.job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toBe('pipewright: cannot read folder.job.json: it is a folder\n');
  });

  it('`validate --json` gives it as one JSON line', async () => {
    const dir = await makeTempDir('pipewright-usage-');
    const result = await runCli(['validate', 'missing.job.json', '--json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      file: 'missing.job.json',
      code: 'unreadable',
      message: 'cannot read missing.job.json: no such file',
      path: '$',
      ids: [],
    });
  });
});

describe('a metrics file that cannot be written', () => {
  it('is one line naming it and why, in words (exit 1)', async () => {
    const dir = await makeTempDir('pipewright-usage-');
    await writeFile(
      path.join(dir, 'job.json'),
      JSON.stringify({
        format: 'pipewright.job/1',
        name: 'm',
        operators: [
          {
            id: 'src',
            kind: 'source.generator',
            params: { code: 'function generate(i) { return { i }; }', count: 1 },
          },
          { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
        ],
        edges: [{ id: 'e1', from: 'src', to: 'out', partition: 'forward' }],
      }),
    );
    await mkdir(path.join(dir, 'folder'));
    await writeFile(path.join(dir, 'file'), '');
    const folder = await runCli(['run', 'job.json', '--metrics', 'folder'], { cwd: dir });
    expect(folder.code, describeRun(folder)).toBe(1);
    expect(folder.stderr).toBe(
      `pipewright: cannot write the metrics file ${path.join(dir, 'folder')}: it is a folder\n`,
    );
    const under = await runCli(['run', 'job.json', '--metrics', 'file/m.jsonl'], { cwd: dir });
    expect(under.code, describeRun(under)).toBe(1);
    expect(under.stderr).toBe(
      `pipewright: cannot write the metrics file ${path.join(dir, 'file', 'm.jsonl')}: a file is in the way of its folder\n`,
    );
  });
});
