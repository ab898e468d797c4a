// Which run controls apply in which state, and the status line: one place, so the toolbar, the
// Run menu and the shortcuts agree.
import type { ResumeUntil, RunMode, RunStatus } from '../../engine/protocol/protocol.js';

export type RunPhase = RunStatus | 'idle';

export interface RunControlState {
  readonly status: RunPhase;
  readonly mode: RunMode;
  /** A step is shown (there is something to step back from). */
  readonly hasStep: boolean;
  readonly stepSeq?: number;
  readonly breakpoint?: string;
  readonly message?: string;
  /** The checkpoint the run went on from. */
  readonly restoredFrom?: number;
  /** The job has been edited since the run ended (see RunState.outdated). */
  readonly outdated?: boolean;
  /** Where a running debug run will stop (see RunState.runningTo). */
  readonly runningTo?: ResumeUntil;
  /** The job is in restricted mode: not trusted, and it needs trust (renderer/trust/jobTrust.ts). */
  readonly restricted?: boolean;
  /** The run is on a Flink cluster: it cannot pause, and the status says where it runs. */
  readonly onFlink?: boolean;
}

export function isActive(status: RunPhase): boolean {
  return status === 'starting' || status === 'running' || status === 'paused';
}

export interface ControlsEnabled {
  readonly run: boolean;
  readonly debug: boolean;
  readonly flink: boolean;
  readonly pause: boolean;
  readonly resume: boolean;
  readonly stop: boolean;
  readonly step: boolean;
  readonly toNextOperator: boolean;
  readonly stepBack: boolean;
  readonly restart: boolean;
  readonly previewSinks: boolean;
  readonly editBreakpoints: boolean;
}

export function controlsEnabled(s: RunControlState): ControlsEnabled {
  const active = isActive(s.status);
  const debugPaused = s.mode === 'debug' && s.status === 'paused';
  const mayStart = !active && s.restricted !== true;
  return {
    run: mayStart,
    debug: mayStart,
    flink: mayStart,
    // Flink has no pause: a run there stops with a savepoint instead.
    pause: s.status === 'running' && s.onFlink !== true,
    resume: s.status === 'paused',
    stop: active,
    step: debugPaused,
    toNextOperator: debugPaused,
    stepBack: debugPaused && s.hasStep,
    // Restarting stops the current run first; not while it is still starting.
    restart: s.status !== 'starting' && s.restricted !== true,
    // Preview is decided when a run starts.
    previewSinks: !active,
    // Breakpoints go to the engine with run.start or while it waits; not while it races along.
    editBreakpoints: s.status !== 'running' && s.status !== 'starting',
  };
}

export function statusText(s: RunControlState): string {
  const base = phaseText(s);
  // The host's word (e.g. "done: 368 records from the sources in 0.11 s") follows, except where
  // the step is the news or the message is the failure already said.
  if (s.message === undefined || s.status === 'failed' || s.status === 'paused') return base;
  return `${base} — ${s.message}`;
}

function phaseText(s: RunControlState): string {
  switch (s.status) {
    case 'idle':
      return 'Not running';
    case 'starting':
      if (s.onFlink === true) return 'Starting on Flink…';
      return s.mode === 'debug' ? 'Starting a debug run…' : 'Starting…';
    case 'running':
      if (s.onFlink === true) return 'Running on Flink';
      if (s.mode !== 'debug') return 'Running';
      return s.runningTo === 'nextOperator'
        ? 'Debugging: running to the next operator'
        : 'Debugging: running to the next breakpoint';
    case 'paused': {
      if (s.stepSeq === undefined) {
        if (s.mode === 'run') return 'Paused';
        return s.restoredFrom === undefined
          ? 'Paused before the first step'
          : `Paused just after checkpoint ${s.restoredFrom}`;
      }
      const at = `Paused at step ${s.stepSeq}`;
      return s.breakpoint === undefined ? at : `${at} (breakpoint ${s.breakpoint})`;
    }
    case 'finished':
      return 'Finished';
    case 'stopped':
      return 'Stopped';
    case 'failed':
      // Once the job is edited, the failure may be fixed: its reason would only mislead.
      if (s.outdated === true) return 'Not running (the last run failed; the job has changed since)';
      return s.message === undefined ? 'Failed' : `Failed: ${s.message}`;
  }
}
