import { describe, expect, it } from 'vitest';
import type { FileProblem } from '../../engine/protocol/protocol.js';
import { createDesignerStore } from '../store/designerStore';
import { missingInput as missing } from '../store/problemFixtures';
import { createInputFileChecks } from './inputFileChecks';

const JOB = JSON.stringify({
  format: 'pipewright.job/1',
  name: 'j',
  operators: [{ id: 'src', kind: 'source.jsonl', params: { path: 'missing.jsonl' } }],
  edges: [],
});

function fakeHost() {
  const asked: unknown[] = [];
  const answers: ((problems: FileProblem[]) => void)[] = [];
  const host = {
    request: (method: string, params: unknown) => {
      expect(method).toBe('job.checkFiles');
      asked.push(params);
      return new Promise<{ problems: FileProblem[] }>((resolve) =>
        answers.push((problems) => resolve({ problems })),
      );
    },
  };
  return { host: host as never, asked, answers };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('input file checks', () => {
  it('asks the host about the files the job names as the designer has it, never sending its text, and lists the answer', async () => {
    const store = createDesignerStore();
    const fake = fakeHost();
    const checks = createInputFileChecks(store, fake.host);
    store.getState().loadText('/jobs/j.job.json', JOB);
    store.getState().setJobField('name', 'renamed');
    store.getState().updateOperator('src', { params: { path: 'edited.jsonl' } });
    void checks.check();
    expect(fake.asked).toEqual([
      {
        path: '/jobs/j.job.json',
        inputs: [{ operator: 'src', index: 0, param: 'path', file: 'edited.jsonl' }],
      },
    ]);
    fake.answers[0]!([missing]);
    await settled();
    expect(store.getState().fileProblems).toEqual([missing]);
  });

  it('keeps only the latest answer', async () => {
    const store = createDesignerStore();
    const fake = fakeHost();
    const checks = createInputFileChecks(store, fake.host);
    store.getState().loadText('/jobs/j.job.json', JOB);
    void checks.check();
    void checks.check();
    fake.answers[1]!([]);
    fake.answers[0]!([missing]);
    await settled();
    expect(store.getState().fileProblems).toEqual([]);
  });

  it('drops an answer about a file no longer open, and asks nothing of a job that has no file', async () => {
    const store = createDesignerStore();
    const fake = fakeHost();
    const checks = createInputFileChecks(store, fake.host);
    store.getState().loadText('/jobs/j.job.json', JOB);
    void checks.check();
    store.getState().loadText(undefined, JOB, { asNew: true });
    fake.answers[0]!([missing]);
    await settled();
    expect(store.getState().fileProblems).toEqual([]);
    store.getState().setFileProblems([missing]);
    await checks.check();
    expect(fake.asked).toHaveLength(1);
    expect(store.getState().fileProblems).toEqual([]);
  });
});
