import { describe, expect, it } from 'vitest';
import type { Problem } from '../../engine/graph/index.js';
import type { JobDraft } from '../document/jobDraft';
import { listProblems, type ProblemSources } from './listedProblems';
import { missingInput as missing } from './problemFixtures';
import type { UnappliedField } from './unappliedFields';

const draft: JobDraft = {
  format: 'pipewright.job/1',
  name: 'j',
  operators: [
    { id: 'src', kind: 'source.jsonl', params: { path: 'missing.jsonl' } },
    { id: 'p1', kind: 'process', params: { code: '' } },
  ],
  edges: [],
};

const validatorProblem: Problem = { code: 'cycle', message: 'a cycle', path: '$.edges', ids: ['e1'] };

const field: UnappliedField = {
  key: 'k',
  owner: { kind: 'operator', id: 'p1' },
  label: 'Parallelism',
  path: '$.operators[1].parallelism',
  text: 'four',
  reason: '"four" is not a number',
  kept: '1',
};

const none: ProblemSources = {
  draft,
  problems: [],
  unappliedFields: [],
  fileProblems: [],
  runFailure: undefined,
};

describe('listProblems', () => {
  it('lists a run command the host refused, whole, after the run failure', () => {
    const notice = `run.stop: the engine host disconnected (${'x'.repeat(300)})`;
    const listed = listProblems({
      ...none,
      runFailure: { message: 'boom', operator: undefined },
      runNotice: notice,
    });
    expect(listed.map((p) => [p.code, p.message])).toEqual([
      ['run-failed', 'last run failed: boom'],
      ['run-command-failed', notice],
    ]);
  });

  it('lists the run failure first, then the validator’s problems, the fields not applied and the file warnings', () => {
    const listed = listProblems({
      draft,
      problems: [validatorProblem],
      unappliedFields: [field],
      fileProblems: [missing],
      runFailure: { message: 'operator "p1": Unexpected token', operator: 'p1' },
    });
    expect(listed.map((p) => [p.severity, p.code, p.ids])).toEqual([
      ['error', 'run-failed', ['p1']],
      ['error', 'cycle', ['e1']],
      ['error', 'field-not-applied', ['p1']],
      ['warning', 'input-file-missing', ['src']],
    ]);
    expect(listed[0]!.message).toBe('last run failed: operator "p1": Unexpected token');
    expect(listed[3]).toEqual({
      code: 'input-file-missing',
      severity: 'warning',
      message: missing.message,
      path: missing.path,
      ids: ['src'],
    });
  });

  it('lists nothing when nothing is wrong', () => {
    expect(listProblems(none)).toEqual([]);
  });

  it('drops a file warning once the operator names another file, or is gone', () => {
    const renamed: JobDraft = {
      ...draft,
      operators: [{ id: 'src', kind: 'source.jsonl', params: { path: 'other.jsonl' } }],
    };
    expect(listProblems({ ...none, draft: renamed, fileProblems: [missing] })).toEqual([]);
    expect(listProblems({ ...none, draft: { ...draft, operators: [] }, fileProblems: [missing] })).toEqual(
      [],
    );
  });

  it('names no operator for a failure that names none', () => {
    const [failure] = listProblems({
      ...none,
      runFailure: { message: 'out of memory', operator: undefined },
    });
    expect(failure!.ids).toEqual([]);
  });
});
