import { describe, expect, it } from 'vitest';
import { edge, expectNames, job, only, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

const writes = (id: string, path: string) => sink(id, { params: { path } });
const reads = (id: string, path: string) => source(id, { params: { path } });

/** events -> each sink given, so that only the files can be wrong. */
function fanOut(...sinks: ReturnType<typeof sink>[]) {
  return job(
    [source('events'), ...sinks],
    sinks.map((s, k) => edge(`e${k}`, 'events', s.id as string)),
  );
}

describe('two operators on one file', () => {
  it('two sinks writing one file, written two ways, name both operators and the file', () => {
    const { problems } = validateJob(fanOut(writes('a', 'same.jsonl'), writes('b', './same.jsonl')));
    const problem = only(problems, 'same-file');
    expect(problem).toMatchObject({ path: '$.operators[2].params.path', ids: ['b', 'a'] });
    expectNames(problem, 'a', 'b');
    expect(problem.message).toContain('same.jsonl');
  });

  it('compares paths once resolved: dot-dot, doubled slashes, a trailing folder part', () => {
    for (const other of ['out/../same.jsonl', 'x//..//same.jsonl', 'out/./../same.jsonl']) {
      const { problems } = validateJob(fanOut(writes('a', 'same.jsonl'), writes('b', other)));
      expectNames(only(problems, 'same-file'), 'a', 'b');
    }
  });

  it('an absolute path to the same place, against the job file folder', () => {
    const doc = fanOut(writes('a', 'out/same.jsonl'), writes('b', '/work/jobs/out/same.jsonl'));
    const problem = only(validateJob(doc, { jobDir: '/work/jobs' }).problems, 'same-file');
    expectNames(problem, 'a', 'b');
    expect(problem.message).toContain('/work/jobs/out/same.jsonl');
    // Another folder: two files.
    expect(validateJob(doc, { jobDir: '/work/other' }).problems).toEqual([]);
    // The job file's folder given with a trailing slash, or not normalised, is the same folder.
    expect(validateJob(doc, { jobDir: '/work/x/../jobs/' }).problems.map((p) => p.code)).toEqual([
      'same-file',
    ]);
  });

  it('a sink writing the file a source reads', () => {
    const doc = job(
      [reads('events', 'data/events.jsonl'), writes('out', 'data/../data/events.jsonl')],
      [edge('e1', 'events', 'out')],
    );
    const problem = only(validateJob(doc).problems, 'same-file');
    expect(problem).toMatchObject({ path: '$.operators[1].params.path', ids: ['out', 'events'] });
    expectNames(problem, 'out', 'events');
    expect(problem.message).toMatch(/reads/);
  });

  it('three sinks on one file: each after the first names the first', () => {
    const { problems } = validateJob(
      fanOut(writes('a', 'same.jsonl'), writes('b', 'same.jsonl'), writes('c', './same.jsonl')),
    );
    const found = problems.filter((p) => p.code === 'same-file');
    expect(found.map((p) => p.ids)).toEqual([
      ['b', 'a'],
      ['c', 'a'],
    ]);
  });

  it('different files, and two sources reading one file, are fine', () => {
    expect(validateJob(fanOut(writes('a', 'a.jsonl'), writes('b', 'sub/a.jsonl'))).problems).toEqual([]);
    const twoReaders = job(
      [reads('s1', 'in.jsonl'), reads('s2', './in.jsonl'), sink('out')],
      [edge('e1', 's1', 'out'), edge('e2', 's2', 'out')],
    );
    expect(validateJob(twoReaders).problems).toEqual([]);
    // Without the job's folder, an absolute path and a relative one cannot be compared: no problem made up.
    expect(validateJob(fanOut(writes('a', 'same.jsonl'), writes('b', '/x/same.jsonl'))).problems).toEqual([]);
  });
});
