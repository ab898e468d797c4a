// The designer's host with user code that never returns or leaves a rejected promise behind:
// the host keeps answering, the run's status says which operator is stuck on which record,
// Stop ends it within 2 s naming both, and the next run starts on a fresh run thread.
import { describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';
import { STOP_BOUND_MS, writeProcessJob } from '../../../test/processJob.js';
import type { RunInfo } from '../../protocol/runProtocol.js';

const session = hostSessionPerTest('pipewright-stuck-');
const { result, eventsOf, until } = session;

const saveJob = (code: string, settings?: Record<string, unknown>, parallelism?: number) =>
  writeProcessJob(session.dir, code, 5, settings, parallelism);

const lastStatus = (runId: string): RunInfo | undefined => eventsOf('run.status', runId).at(-1);

/** The run's status once it has failed. */
const failedStatus = (runId: string): Promise<RunInfo> =>
  until('the run to fail', () => {
    const status = lastStatus(runId);
    return status?.status === 'failed' ? status : undefined;
  });

/** After a run failed: its code fixed, the next run starts (on a new run thread) and finishes. */
async function nextRunFinishes(): Promise<void> {
  const fixed = await saveJob('function process(r, ctx) { ctx.emit(r); }');
  const next = await result('run.start', { ...fixed, mode: 'run', previewSinks: false });
  await until('the next run to finish', () => lastStatus(next.runId)?.status === 'finished');
}

describe('user code that never returns, run from the designer', () => {
  for (const mode of ['run', 'debug'] as const) {
    it(`in mode ${mode}: shows where it is stuck, keeps the host answering, and Stop ends it naming the operator and the record`, async () => {
      const { path, text } = await saveJob(
        'function process(r, ctx) {\n  if (r.id === 3) { while (true) {} }\n  ctx.emit(r);\n}',
      );
      const info = await result('run.start', { text, path, mode, previewSinks: false });
      if (mode === 'debug') {
        // Steps up to the stuck call; the step into it never answers until the stop.
        void session.call('run.setBreakpoints', { runId: info.runId, breakpoints: [] });
        void session.call('run.resume', { runId: info.runId });
      }
      await until('a status saying where the code is stuck', () =>
        eventsOf('run.status', info.runId).some((s) =>
          /operator "p1" has run its code on the record from in\.jsonl:3 for \d+\.\d s without returning; Stop ends it/.test(
            s.message ?? '',
          ),
        ),
      );
      // The host's own thread is free: other methods answer at once.
      expect((await result('host.info', {})).version).toBe('0.0.0');

      const askedAt = performance.now();
      const stopped = await result('run.stop', { runId: info.runId });
      expect(performance.now() - askedAt).toBeLessThan(STOP_BOUND_MS);
      expect(stopped.status).toBe('failed');
      expect(stopped.message).toMatch(
        /^stopped by force: operator "p1" has run its code on the record from in\.jsonl:3 for \d+\.\d s without returning$/,
      );
      expect(lastStatus(info.runId)?.status).toBe('failed');

      // The next run starts on a new run thread and finishes.
      await nextRunFinishes();
    });
  }

  it('a promise that never settles, while the other subtask of its thread goes on: Stop ends it naming the operator and the record', async () => {
    const { path, text } = await saveJob(
      'function process(r, ctx) {\n  if (r.id === 3) return new Promise(() => {});\n  ctx.emit(r);\n}',
      { threads: 1 },
      2,
    );
    const info = await result('run.start', { text, path, mode: 'run', previewSinks: false });
    await until('a status saying where the code waits', () =>
      eventsOf('run.status', info.runId).some((s) =>
        /operator "p1" \(subtask 0 of 2\) has waited \d+\.\d s on a promise its code returned on the record from in\.jsonl:3; Stop ends it/.test(
          s.message ?? '',
        ),
      ),
    );
    const askedAt = performance.now();
    const stopped = await result('run.stop', { runId: info.runId });
    expect(performance.now() - askedAt).toBeLessThan(STOP_BOUND_MS);
    expect(stopped.status).toBe('failed');
    expect(stopped.message).toMatch(
      /^stopped by force: operator "p1" \(subtask 0 of 2\) has waited \d+\.\d s on a promise its code returned on the record from in\.jsonl:3$/,
    );
    await nextRunFinishes();
  });

  it('a breakpoint condition that never returns: the host keeps answering, and Stop ends it naming the breakpoint, the operator and the record', async () => {
    const { path, text } = await saveJob('function process(r, ctx) { ctx.emit(r); }');
    const info = await result('run.start', { text, path, mode: 'debug', previewSinks: false });
    void session.call('run.setBreakpoints', {
      runId: info.runId,
      breakpoints: [
        { id: 'b1', type: 'condition', operator: 'p1', expression: '(function(){while(true){}})()' },
      ],
    });
    void session.call('run.resume', { runId: info.runId });
    await until('a status saying where the condition is stuck', () =>
      eventsOf('run.status', info.runId).some((s) =>
        /the condition of breakpoint "b1" has run on the record from in\.jsonl:1 at operator "p1" for \d+\.\d s without returning; Stop ends it/.test(
          s.message ?? '',
        ),
      ),
    );
    expect((await result('host.info', {})).version).toBe('0.0.0');
    const askedAt = performance.now();
    const stopped = await result('run.stop', { runId: info.runId });
    expect(performance.now() - askedAt).toBeLessThan(STOP_BOUND_MS);
    expect(stopped.status).toBe('failed');
    expect(stopped.message).toMatch(
      /^stopped by force: the condition of breakpoint "b1" has run on the record from in\.jsonl:1 at operator "p1" for \d+\.\d s without returning$/,
    );
    await nextRunFinishes();
  });

  it('a call past settings.callTimeoutMs fails the run, naming the operator and the record', async () => {
    const { path, text } = await saveJob(
      'function process(r, ctx) {\n  if (r.id === 3) { while (true) {} }\n  ctx.emit(r);\n}',
      { callTimeoutMs: 300 },
    );
    const info = await result('run.start', { text, path, mode: 'run', previewSinks: false });
    const failed = await failedStatus(info.runId);
    expect(failed.message).toMatch(
      /^operator "p1" has run its code on the record from in\.jsonl:3 for \d\.\d s without returning: over the job's call time limit \(settings\.callTimeoutMs 300\)$/,
    );
    await nextRunFinishes();
  });

  it('a promise its code rejects and nothing handles fails the run, naming the operator and the record, and nothing else', async () => {
    const { path, text } = await saveJob(
      'function process(r, ctx) {\n  if (r.id === 3) Promise.resolve().then(() => { throw new Error("lost"); });\n  ctx.emit(r);\n}',
    );
    const info = await result('run.start', { text, path, mode: 'run', previewSinks: false });
    const failed = await failedStatus(info.runId);
    expect(failed.message).toBe(
      'operator "p1" failed on the record from in.jsonl:3: a promise its code made was rejected and nothing handled it: lost',
    );
    expect((await result('host.info', {})).version).toBe('0.0.0');
    await nextRunFinishes();
  });
});
