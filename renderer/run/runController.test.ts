import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvents, RunMethods } from '../../engine/protocol/protocol.js';
import { createDesignerStore } from '../store/designerStore';
import type { RunClient } from './runClient';
import { createRunController } from './runController';
import { checkpointEvent, runInfo as info, stepView as step } from './runFixtures';
import { breakpointsOf, createRunStore } from './runStore';

const TEMPLATE = join(import.meta.dirname, '../../assets/examples/owner-has-items/owner-has-items.job.json');
const PATH = '/jobs/owner-has-items.job.json';

type Handlers = { [M in keyof RunMethods]?: (params: RunMethods[M][0]) => RunMethods[M][1] };

function fakeClient(handlers: Handlers) {
  const calls: { method: string; params: unknown }[] = [];
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  const client: RunClient = {
    async request(method, params) {
      calls.push({ method, params });
      const handler = handlers[method] as ((p: unknown) => unknown) | undefined;
      if (handler === undefined) throw new Error(`${method} is not faked`);
      return handler(params) as never;
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (data: unknown) => void);
      return () => set.delete(listener as (data: unknown) => void);
    },
  };
  const emit = <E extends keyof RunEvents>(event: E, data: RunEvents[E]) => {
    for (const l of listeners.get(event) ?? []) l(data);
  };
  return { client, calls, emit, methods: () => calls.map((c) => c.method) };
}

/** Lets queued commands (a resume after a start) run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(handlers: Handlers, options: { path?: string } = { path: PATH }) {
  const fileChecks: number[] = [];
  const designer = createDesignerStore();
  designer
    .getState()
    .loadText(options.path, readFileSync(TEMPLATE, 'utf8'), { asNew: options.path === undefined });
  const runs = createRunStore();
  const fake = fakeClient(handlers);
  const saves: number[] = [];
  const messages: string[] = [];
  const controller = createRunController({
    runs,
    designer,
    client: fake.client,
    save: async () => {
      saves.push(1);
      designer.getState().markSaved(PATH, designer.getState().textToSave());
      return true;
    },
    message: async (title) => {
      messages.push(title);
    },
    checkInputFiles: () => fileChecks.push(1),
  });
  return { designer, runs, controller, saves, messages, fileChecks, ...fake };
}

describe('run controller', () => {
  it('starts a debug run paused before the first step when no breakpoint is set', async () => {
    const t = setup({ 'run.start': () => info('paused') });
    await t.controller.debug();
    expect(t.methods()).toEqual(['run.start']);
    expect(t.calls[0]!.params).toMatchObject({
      path: PATH,
      mode: 'debug',
      previewSinks: false,
      breakpoints: [],
    });
    expect(t.runs.getState()).toMatchObject({ runId: 'r1', status: 'paused', mode: 'debug' });
  });

  it('runs a debug run on to the first breakpoint when breakpoints are set', async () => {
    const t = setup({
      'run.start': () => info('paused'),
      'run.setBreakpoints': () => ({ problems: [] }),
      'run.resume': () => info('running'),
    });
    await t.controller.addBreakpoint({ type: 'condition', expression: 'r.owner === "o7"' });
    await t.controller.debug();
    await settled();
    expect(t.methods()).toEqual(['run.start', 'run.setBreakpoints', 'run.resume']);
    expect(t.calls[0]!.params).toMatchObject({
      breakpoints: [{ id: 'bp1', type: 'condition', expression: 'r.owner === "o7"' }],
    });
    t.emit('run.step', { runId: 'r1', step: { ...step(7), breakpoint: 'bp1' } });
    t.emit('run.status', info('paused'));
    expect(t.runs.getState().shown?.breakpoint).toBe('bp1');
    expect(t.runs.getState().status).toBe('paused');
  });

  it('goes on to the first breakpoint also when the run reports paused only after run.start answered', async () => {
    const t = setup({
      'run.start': () => info('starting'),
      'run.setBreakpoints': () => ({ problems: [{ id: 'bp1', message: 'no operator "ownerz"' }] }),
      'run.resume': () => info('running'),
    });
    await t.controller.addBreakpoint({ type: 'operator', operator: 'owners' });
    await t.controller.debug();
    await settled();
    expect(t.methods()).toEqual(['run.start', 'run.setBreakpoints']);
    expect(t.runs.getState().breakpointProblems).toEqual([{ id: 'bp1', message: 'no operator "ownerz"' }]);
    t.emit('run.status', info('paused'));
    await settled();
    expect(t.methods()).toEqual(['run.start', 'run.setBreakpoints', 'run.resume']);
    // Only once: a later pause at a hit stays paused.
    t.emit('run.step', { runId: 'r1', step: { ...step(3), breakpoint: 'bp1' } });
    t.emit('run.status', info('paused'));
    await settled();
    expect(t.methods()).toEqual(['run.start', 'run.setBreakpoints', 'run.resume']);
  });

  it('asks to save a job that has no file yet, and does not run it unsaved', async () => {
    const t = setup({ 'run.start': () => info('running', 'run') }, {});
    const declined = t.controller.run();
    await settled();
    expect(t.runs.getState().prompt?.kind).toBe('saveFirst');
    const prompt = t.runs.getState().prompt;
    if (prompt?.kind === 'saveFirst') prompt.resolve(false);
    await declined;
    expect(t.methods()).toEqual([]);

    const accepted = t.controller.run();
    await settled();
    const again = t.runs.getState().prompt;
    if (again?.kind === 'saveFirst') again.resolve(true);
    await accepted;
    expect(t.saves).toHaveLength(1);
    expect(t.methods()).toEqual(['run.start']);
    expect(t.calls[0]!.params).toMatchObject({ path: PATH, mode: 'run' });
  });

  it('applies events that arrive before run.start answers, and ignores other runs', async () => {
    let emitEarly: () => void = () => {};
    const t = setup({
      'run.start': () => {
        emitEarly();
        return info('running', 'run');
      },
    });
    emitEarly = () => {
      t.emit('run.checkpoint', checkpointEvent(1));
      t.emit('run.status', { ...info('finished', 'run'), runId: 'r0' });
    };
    await t.controller.run();
    expect(t.runs.getState().checkpoints.map((c) => c.id)).toEqual([1]);
    expect(t.runs.getState().status).toBe('running');
  });

  it('steps, steps back to what was shown before, and only while a debug run is paused', async () => {
    let seq = 0;
    const t = setup({
      'run.start': () => info('paused'),
      'run.step': () => step(++seq),
      'run.stepBack': () => (--seq === 0 ? undefined : step(seq)),
    });
    await t.controller.step();
    expect(t.methods()).toEqual([]);
    await t.controller.debug();
    await Promise.all([t.controller.step(), t.controller.step(), t.controller.step()]);
    expect(t.runs.getState().history.map((s) => s.seq)).toEqual([1, 2, 3]);
    await t.controller.stepBack();
    await t.controller.stepBack();
    expect(t.runs.getState().shown).toEqual(step(1));
    expect(t.runs.getState().history.map((s) => s.seq)).toEqual([1]);
  });

  it('runs to the next operator (run.resume until "nextOperator") only while a debug run is paused', async () => {
    const t = setup({ 'run.start': () => info('paused'), 'run.resume': () => info('running') });
    await t.controller.toNextOperator();
    expect(t.methods()).toEqual([]);
    await t.controller.debug();
    await t.controller.toNextOperator();
    expect(t.calls.at(-1)).toEqual({ method: 'run.resume', params: { runId: 'r1', until: 'nextOperator' } });
    expect(t.runs.getState()).toMatchObject({ status: 'running', runningTo: 'nextOperator' });
    t.emit('run.step', { runId: 'r1', step: step(2) });
    t.emit('run.status', info('paused'));
    // A plain Resume goes to the next breakpoint again.
    await t.controller.resume();
    expect(t.calls.at(-1)).toEqual({ method: 'run.resume', params: { runId: 'r1' } });
    expect(t.runs.getState().runningTo).toBe('breakpoint');
  });

  it("toggles a breakpoint on an operator (the canvas's Break on this operator), sent to a paused run", async () => {
    const t = setup({
      'run.start': () => info('paused'),
      'run.setBreakpoints': () => ({ problems: [] }),
    });
    await t.controller.debug();
    await t.controller.toggleOperatorBreakpoint('owners');
    expect(t.calls.at(-1)).toEqual({
      method: 'run.setBreakpoints',
      params: { runId: 'r1', breakpoints: [{ id: 'bp1', type: 'operator', operator: 'owners' }] },
    });
    await t.controller.toggleOperatorBreakpoint('owners');
    expect(t.calls.at(-1)).toEqual({
      method: 'run.setBreakpoints',
      params: { runId: 'r1', breakpoints: [] },
    });
    expect(breakpointsOf(t.runs.getState())).toEqual([]);
  });

  it('refuses to run a job with problems', async () => {
    const t = setup({ 'run.start': () => info('running') });
    t.designer.getState().setSetting('checkpointIntervalMs', -5);
    await t.controller.run();
    expect(t.methods()).toEqual([]);
    expect(t.messages).toEqual(['Cannot run yet']);
  });

  it('sends breakpoint changes to a paused run and shows the engine’s problems with them', async () => {
    const t = setup({
      'run.start': () => info('paused'),
      'run.setBreakpoints': ({ breakpoints }) => ({
        problems: breakpoints.map((bp) => ({ id: bp.id, message: 'SyntaxError' })),
      }),
    });
    await t.controller.debug();
    await t.controller.addBreakpoint({ type: 'condition', expression: 'r.owner ===' });
    expect(t.runs.getState().breakpointProblems).toEqual([{ id: 'bp1', message: 'SyntaxError' }]);
    await t.controller.removeBreakpoint('bp1');
    expect(breakpointsOf(t.runs.getState())).toEqual([]);
    expect(t.runs.getState().breakpointProblems).toEqual([]);
  });

  it('restarts from the chosen checkpoint, stopping the live run first', async () => {
    const t = setup({
      'run.start': () => info('running', 'run'),
      'run.stop': () => info('stopped', 'run'),
      'run.checkpoints': () => [
        checkpointEvent(4, 'completed', { runId: 'r0' }),
        checkpointEvent(6, 'completed', { runId: 'r0' }),
        checkpointEvent(5, 'failed', { runId: 'r0', reason: 'x' }),
      ],
    });
    await t.controller.run();
    const restarting = t.controller.restart();
    await settled();
    const prompt = t.runs.getState().prompt;
    expect(prompt?.kind).toBe('restart');
    if (prompt?.kind !== 'restart') return;
    expect(prompt.checkpoints.map((c) => c.id)).toEqual([6, 4]);
    prompt.resolve({ checkpointId: 4, mode: 'run' });
    await restarting;
    expect(t.methods()).toEqual(['run.start', 'run.checkpoints', 'run.stop', 'run.start']);
    expect(t.calls[3]!.params).toMatchObject({ restore: 4 });
  });

  it('stops the run of a document that is closed or replaced', async () => {
    const t = setup({ 'run.start': () => info('running', 'run'), 'run.stop': () => info('stopped', 'run') });
    await t.controller.run();
    t.designer.getState().newDocument();
    expect(t.methods()).toEqual(['run.start', 'run.stop']);
    expect(t.runs.getState().status).toBe('idle');
  });

  it('has the host check the input files as a run starts, once the job has a file', async () => {
    const t = setup({ 'run.start': () => info('running', 'run') });
    await t.controller.run();
    expect(t.fileChecks).toHaveLength(1);
  });

  it('stops saying why the last run failed once the job is edited, but not for a move on the canvas', async () => {
    const t = setup({
      'run.start': () => ({ ...info('failed', 'run'), message: 'operator "owners": boom' }),
    });
    await t.controller.run();
    expect(t.runs.getState()).toMatchObject({ status: 'failed', outdated: false });
    t.designer.getState().moveOperators({ owners: { x: 5, y: 5 } });
    expect(t.runs.getState().outdated).toBe(false);
    t.designer.getState().updateOperator('owners', { parallelism: 2 });
    expect(t.runs.getState().outdated).toBe(true);
  });
});
