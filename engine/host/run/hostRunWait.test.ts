// The designer's run status while a connector waits, with a source kind from test code
// (test/kinds/sourceWaiting) registered in this process: the status says which subtask waits for
// what, while the job opens (a connector connecting in open()) and while it runs, and goes back
// to the plain status once the wait ends. The run service's thread passes statuses on as they are.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kind as sourceWaiting } from '../../../test/kinds/sourceWaiting/kind.js';
import { validateJob } from '../../graph/validation/validateJob.js';
import { registerKindModule } from '../../operators/kindFactories.js';
import type { RunInfo } from '../../protocol/runProtocol.js';
import { HostRun } from './hostRun.js';

let unregister: () => void;
const dirs: string[] = [];
beforeAll(() => {
  unregister = registerKindModule(sourceWaiting);
});
afterAll(async () => {
  unregister();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function until<T>(what: string, value: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = value();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a run from the designer whose source waits for its server', () => {
  it.each(['open', 'poll'] as const)(
    'says so in its status, then goes on (waiting in %s)',
    async (waitIn) => {
      const dir = await mkdtemp(join(tmpdir(), 'pipewright-host-wait-'));
      dirs.push(dir);
      const { job, problems } = validateJob({
        format: 'pipewright.job/1',
        name: 'waits',
        settings: { threads: 1 },
        operators: [
          { id: 'src', kind: 'source.waiting', params: { count: 20, releaseFile: 'go', waitIn } },
          { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
        ],
        edges: [{ id: 'e1', from: 'src', to: 'out', partition: 'forward' }],
      });
      expect(problems).toEqual([]);
      const statuses: RunInfo[] = [];
      const started = HostRun.start({
        runId: 'r1',
        job: job!,
        dirs: { jobDir: dir, stateDir: join(dir, 'state'), checkpointDir: join(dir, 'checkpoints') },
        confined: true,
        previewSinks: false,
        events: {
          status: (info) => statuses.push(info),
          metrics: () => {},
          checkpoint: () => {},
          output: () => {},
          step: () => {},
        },
      });
      const waiting = await until('a status saying what the source waits for', () =>
        statuses.find((s) => s.message?.startsWith('operator "src" (subtask 1 of 1): waiting for ')),
      );
      expect(waiting.status).toBe(waitIn === 'open' ? 'starting' : 'running');
      expect(waiting.message).toMatch(/waiting for .*go \(not there yet\): retry \d+ in 100 ms$/);
      await writeFile(join(dir, 'go'), '');
      await started;
      const finished = await until('the run to finish', () => statuses.find((s) => s.status === 'finished'));
      expect(finished.message).toMatch(/^done: 20 records/);
      // Once the wait ended, the plain status came back before the run finished.
      const afterWait = statuses.slice(statuses.lastIndexOf(waiting) + 1);
      expect(afterWait.filter((s) => s.status !== 'finished').some((s) => s.message === undefined)).toBe(
        true,
      );
    },
  );
});
