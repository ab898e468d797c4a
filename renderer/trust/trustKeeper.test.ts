import { describe, expect, it } from 'vitest';
import { createDesignerStore } from '../store/designerStore';
import { keepTrust } from './trustKeeper';

const TEXT = `${JSON.stringify({ format: 'pipewright.job/1', name: 'j', operators: [], edges: [] }, null, 2)}\n`;

/** A host that trusts the texts in `trusted` and records what it is asked. */
function fakeHost(trusted: Set<string>) {
  const calls: { method: string; params: { path: string; text: string } }[] = [];
  let answers: (() => void)[] = [];
  const host = {
    request(method: string, params: { path: string; text: string }) {
      calls.push({ method, params });
      return new Promise((resolve) => {
        answers.push(() => resolve(method === 'trust.check' ? { trusted: trusted.has(params.text) } : {}));
      });
    },
  };
  const answerAll = async () => {
    const now = answers;
    answers = [];
    for (const answer of now) answer();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { host: host as never, calls, answerAll };
}

describe('keepTrust', () => {
  it('asks the host about a job opened from disk, and takes its answer', async () => {
    const store = createDesignerStore();
    const { host, calls, answerAll } = fakeHost(new Set([TEXT]));
    const off = keepTrust(store, host);
    store.getState().loadText('/jobs/a.job.json', TEXT);
    expect(store.getState().trust).toBe('checking');
    await answerAll();
    expect(store.getState().trust).toBe('trusted');
    expect(calls).toEqual([{ method: 'trust.check', params: { path: '/jobs/a.job.json', text: TEXT } }]);

    store.getState().loadText('/jobs/b.job.json', `${TEXT} `);
    await answerAll();
    expect(store.getState().trust).toBe('untrusted');
    off();
  });

  it('drops an answer about a document that is no longer open', async () => {
    const store = createDesignerStore();
    const { host, answerAll } = fakeHost(new Set([TEXT]));
    const off = keepTrust(store, host);
    store.getState().loadText('/jobs/a.job.json', TEXT);
    store.getState().loadText('/jobs/b.job.json', `${TEXT} `);
    await answerAll();
    expect(store.getState().filePath).toBe('/jobs/b.job.json');
    expect(store.getState().trust).toBe('untrusted');
    off();
  });

  it('records a trusted job as saved, and never a job in restricted mode', async () => {
    const store = createDesignerStore();
    const { host, calls, answerAll } = fakeHost(new Set());
    const off = keepTrust(store, host);
    store.getState().newDocument('mine');
    expect(store.getState().trust).toBe('trusted');
    store.getState().markSaved('/jobs/mine.job.json', 'v1');
    expect(calls.at(-1)).toEqual({
      method: 'trust.grant',
      params: { path: '/jobs/mine.job.json', text: 'v1' },
    });

    store.getState().loadText('/jobs/stranger.job.json', TEXT);
    await answerAll();
    expect(store.getState().trust).toBe('untrusted');
    const before = calls.length;
    store.getState().markSaved('/jobs/stranger.job.json', 'edited');
    expect(calls.length).toBe(before);
    off();
  });

  it('trusts a new job and a template without asking', () => {
    const store = createDesignerStore();
    const { host, calls } = fakeHost(new Set());
    const off = keepTrust(store, host);
    store.getState().loadText('/app/examples/t.job.json', TEXT, { asNew: true });
    expect(store.getState().trust).toBe('trusted');
    expect(calls).toEqual([]);
    off();
  });
});
