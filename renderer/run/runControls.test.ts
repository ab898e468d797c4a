import { describe, expect, it } from 'vitest';
import { controlsEnabled, isActive, type RunControlState, statusText } from './runControls';

const idle: RunControlState = { status: 'idle', mode: 'run', hasStep: false };

describe('run controls', () => {
  it('offers Run, Debug and Restart before a run, nothing that needs one', () => {
    const c = controlsEnabled(idle);
    expect(c).toMatchObject({
      run: true,
      debug: true,
      restart: true,
      previewSinks: true,
      editBreakpoints: true,
    });
    expect(c).toMatchObject({ pause: false, resume: false, stop: false, step: false, stepBack: false });
  });

  it('offers no Run, Debug or Restart in restricted mode, and still stops a run', () => {
    expect(controlsEnabled({ ...idle, restricted: true })).toMatchObject({
      run: false,
      debug: false,
      restart: false,
    });
    expect(controlsEnabled({ ...idle, status: 'running', restricted: true })).toMatchObject({ stop: true });
  });

  it('offers Pause and Stop while running, and locks the breakpoints and the preview switch', () => {
    const c = controlsEnabled({ ...idle, status: 'running' });
    expect(c).toMatchObject({ run: false, debug: false, pause: true, resume: false, stop: true });
    expect(c).toMatchObject({ step: false, previewSinks: false, editBreakpoints: false });
  });

  it('offers Run on Flink where Run is, and no Pause on Flink, whose status says so', () => {
    expect(controlsEnabled(idle).flink).toBe(true);
    expect(controlsEnabled({ ...idle, restricted: true }).flink).toBe(false);
    const onFlink = { ...idle, status: 'running', onFlink: true } as const;
    expect(controlsEnabled(onFlink)).toMatchObject({ flink: false, pause: false, stop: true });
    expect(statusText({ ...onFlink, message: 'job ab12 at http://h:8081 (Flink 2.3.0)' })).toBe(
      'Running on Flink — job ab12 at http://h:8081 (Flink 2.3.0)',
    );
    expect(statusText({ ...onFlink, status: 'starting' })).toBe('Starting on Flink…');
  });

  it('steps only a paused debug run, and steps back only from a shown step', () => {
    const pausedDebug = { ...idle, status: 'paused', mode: 'debug' } as const;
    expect(controlsEnabled(pausedDebug)).toMatchObject({
      resume: true,
      step: true,
      toNextOperator: true,
      stepBack: false,
    });
    expect(controlsEnabled({ ...pausedDebug, hasStep: true })).toMatchObject({
      stepBack: true,
      editBreakpoints: true,
    });
    expect(controlsEnabled({ ...pausedDebug, mode: 'run' })).toMatchObject({
      resume: true,
      step: false,
      toNextOperator: false,
    });
    expect(controlsEnabled({ ...pausedDebug, status: 'running' }).toNextOperator).toBe(false);
  });

  it('does not restart a run that is still starting', () => {
    expect(controlsEnabled({ ...idle, status: 'starting' }).restart).toBe(false);
    expect(controlsEnabled({ ...idle, status: 'finished' })).toMatchObject({ run: true, restart: true });
  });

  it('knows which states are a live run', () => {
    expect(['starting', 'running', 'paused'].every((s) => isActive(s as never))).toBe(true);
    expect(['idle', 'finished', 'failed', 'stopped'].some((s) => isActive(s as never))).toBe(false);
  });
});

describe('statusText', () => {
  it('says where a paused debug run stands', () => {
    expect(statusText({ ...idle, status: 'paused', mode: 'debug' })).toBe('Paused before the first step');
    expect(statusText({ ...idle, status: 'paused', mode: 'debug', restoredFrom: 7 })).toBe(
      'Paused just after checkpoint 7',
    );
    expect(statusText({ ...idle, status: 'paused', mode: 'debug', stepSeq: 4 })).toBe('Paused at step 4');
    expect(statusText({ ...idle, status: 'paused', mode: 'debug', stepSeq: 4, breakpoint: 'bp1' })).toBe(
      'Paused at step 4 (breakpoint bp1)',
    );
  });

  it('names the other states and a failure’s reason', () => {
    expect(statusText(idle)).toBe('Not running');
    expect(statusText({ ...idle, status: 'running' })).toBe('Running');
    expect(statusText({ ...idle, status: 'running', mode: 'debug' })).toBe(
      'Debugging: running to the next breakpoint',
    );
    expect(statusText({ ...idle, status: 'running', mode: 'debug', runningTo: 'nextOperator' })).toBe(
      'Debugging: running to the next operator',
    );
    expect(statusText({ ...idle, status: 'finished' })).toBe('Finished');
    expect(statusText({ ...idle, status: 'failed', message: 'owners#2: boom' })).toBe(
      'Failed: owners#2: boom',
    );
  });

  it('stops saying why the last run failed once the job has changed since', () => {
    expect(statusText({ ...idle, status: 'failed', message: 'operator "p1": boom', outdated: true })).toBe(
      'Not running (the last run failed; the job has changed since)',
    );
  });
});
