// The host's check of a job's input files, against a real temporary folder.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInputFiles } from '../deploy/inputFileCheck.js';
import { inputFilesOf, parseJobText } from '../graph/index.js';
import { answerMessage } from './hostConnection.js';
import { createHostService } from './hostService.js';

let dir: string;
let jobFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-inputs-'));
  jobFile = join(dir, 'job.job.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function jobText(operators: unknown[]): string {
  return JSON.stringify({ format: 'pipewright.job/1', name: 'inputs', operators, edges: [] });
}

const source = (id: string, path: unknown) => ({ id, kind: 'source.jsonl', params: { path } });

/** The input files of a job's text, as the designer sends them (it never sends the text). */
const inputsOf = (text: string) => inputFilesOf(parseJobText(text).value);

describe('checkInputFiles', () => {
  it('warns of a source whose file is not next to the job file, naming the operator, file and path', async () => {
    await writeFile(join(dir, 'present.jsonl'), '{}\n');
    const text = jobText([source('here', 'present.jsonl'), source('gone', 'missing.jsonl')]);
    expect(await checkInputFiles(jobFile, inputsOf(text))).toEqual([
      {
        code: 'input-file-missing',
        severity: 'warning',
        message: 'operator "gone": input file missing.jsonl not found next to the job file',
        path: '$.operators[1].params.path',
        ids: ['gone'],
        operator: 'gone',
        param: 'path',
        file: 'missing.jsonl',
      },
    ]);
  });

  it('resolves a path with folders against the job file’s folder and says where it looked', async () => {
    await mkdir(join(dir, 'data'));
    await writeFile(join(dir, 'data', 'in.jsonl'), '{}\n');
    const text = jobText([source('ok', 'data/in.jsonl'), source('typo', 'data/inn.jsonl')]);
    const problems = await checkInputFiles(jobFile, inputsOf(text));
    expect(problems.map((p) => p.message)).toEqual([
      `operator "typo": input file data/inn.jsonl not found (looked for ${join(dir, 'data', 'inn.jsonl')})`,
    ]);
  });

  it('takes an absolute path as it is', async () => {
    const absent = join(dir, 'elsewhere', 'x.jsonl');
    const problems = await checkInputFiles(jobFile, inputsOf(jobText([source('abs', absent)])));
    expect(problems.map((p) => p.message)).toEqual([`operator "abs": input file ${absent} not found`]);
  });

  it('says a folder is not a file', async () => {
    await mkdir(join(dir, 'folder.jsonl'));
    const problems = await checkInputFiles(jobFile, inputsOf(jobText([source('dir', 'folder.jsonl')])));
    expect(problems.map((p) => [p.code, p.message])).toEqual([
      ['input-file-unreadable', 'operator "dir": input file folder.jsonl is a folder, not a file'],
    ]);
  });

  it('checks only what reads a file: sinks, generators and other kinds are left alone', async () => {
    const text = jobText([
      { id: 'gen', kind: 'source.generator', params: { code: 'function generate(i) { return i; }' } },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out/none.jsonl' } },
      { id: 'odd', kind: 'no.such.kind', params: { path: 'none.jsonl' } },
      { id: 'proto', kind: 'toString', params: { path: 'none.jsonl' } },
    ]);
    expect(await checkInputFiles(jobFile, inputsOf(text))).toEqual([]);
  });

  it('checks the inputs of a job that is otherwise invalid, and skips what names no file', async () => {
    const text = JSON.stringify({
      operators: [source('a', 'nope.jsonl'), source('b', ''), source('c', 7), { kind: 'source.jsonl' }],
    });
    const problems = await checkInputFiles(jobFile, inputsOf(text));
    expect(problems.map((p) => p.operator)).toEqual(['a']);
  });

  it('finds nothing to check in text that is not JSON', async () => {
    expect(await checkInputFiles(jobFile, inputsOf('{ not json'))).toEqual([]);
  });

  it('refuses a relative job file path, which would resolve against wherever the host started', async () => {
    await expect(checkInputFiles('job.job.json', [])).rejects.toThrow(
      'Cannot check the files of job.job.json: the path must be absolute',
    );
  });
});

describe('job.checkFiles, as a client calls it', () => {
  it('answers the problems of the input files named, and refuses params of another shape', async () => {
    const host = createHostService({
      transport: 'websocket',
      version: '0.0.0',
      dataDir: join(dir, 'data'),
      examplesDir: fileURLToPath(new URL('../../assets/examples', import.meta.url)),
    });
    try {
      const text = jobText([source('gone', 'missing.jsonl')]);
      const answer = await answerMessage(host, {
        type: 'request',
        id: 1,
        method: 'job.checkFiles',
        params: { path: jobFile, inputs: inputsOf(text) },
      });
      expect(answer.error).toBeUndefined();
      expect((answer.result as { problems: { message: string }[] }).problems.map((p) => p.message)).toEqual([
        'operator "gone": input file missing.jsonl not found next to the job file',
      ]);
      const refused = await answerMessage(host, {
        type: 'request',
        id: 2,
        method: 'job.checkFiles',
        params: { path: jobFile, text } as never,
      });
      expect(refused.error?.message).toBe(
        'job.checkFiles: params.inputs must be an array of at most 10000 input files',
      );
      const odd = await answerMessage(host, {
        type: 'request',
        id: 3,
        method: 'job.checkFiles',
        params: { path: jobFile, inputs: [{ operator: 'a', index: -1, param: 'path', file: 'x' }] },
      });
      expect(odd.error?.message).toBe(
        'job.checkFiles: params.inputs[0] must be { operator, index, param, file } (strings, and a whole number)',
      );
    } finally {
      await host.close();
    }
  });
});
