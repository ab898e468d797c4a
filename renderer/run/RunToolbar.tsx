// The run controls above the canvas: the same commands as the Run menu and its shortcuts, each
// enabled when it applies, and a status line that says where the run stands.
import type { MenuCommand } from '../../engine/host/desktopApi.js';
import { useDesigner } from '../store/designerContext';
import { isRestricted } from '../trust/jobTrust';
import { RunDialogs } from './RunDialogs';
import { useRun } from './runContext';
import { controlsEnabled, statusText } from './runControls';
import './run.css';

export function RunToolbar({ run }: { run: (command: MenuCommand) => void }) {
  const status = useRun((s) => s.status);
  const mode = useRun((s) => s.mode);
  const stepSeq = useRun((s) => s.step?.seq);
  const breakpoint = useRun((s) => s.step?.breakpoint);
  const message = useRun((s) => s.message);
  const restoredFrom = useRun((s) => s.restoredFrom);
  const outdated = useRun((s) => s.outdated);
  const runningTo = useRun((s) => s.runningTo);
  const notice = useRun((s) => s.notice);
  const previewSinks = useRun((s) => s.previewSinks);
  const setPreviewSinks = useRun((s) => s.setPreviewSinks);
  const onFlink = useRun((s) => s.flink !== undefined);
  const restricted = useDesigner(isRestricted);
  const state = {
    status,
    mode,
    hasStep: stepSeq !== undefined,
    stepSeq,
    breakpoint,
    message,
    restoredFrom,
    outdated,
    runningTo,
    restricted,
    onFlink,
  };
  const enabled = controlsEnabled(state);
  const untilTrusted = (title: string) => (restricted ? 'Restricted mode: trust this job to run it' : title);

  const tool = (command: MenuCommand, label: string, on: boolean, title: string) => (
    <button type="button" onClick={() => run(command)} disabled={!on} title={title}>
      {label}
    </button>
  );

  return (
    <>
      <div className="toolbar run-toolbar" role="toolbar" aria-label="Run">
        {tool('run.run', 'Run', enabled.run, untilTrusted('Run the job (F5)'))}
        {tool(
          'run.debug',
          'Debug',
          enabled.debug,
          untilTrusted('Debug: stop before the first step, or at the first breakpoint'),
        )}
        {tool('run.pause', 'Pause', enabled.pause, 'Pause the run')}
        {tool('run.resume', 'Resume', enabled.resume, 'Resume, to the next breakpoint in a debug run (F5)')}
        {tool('run.stop', 'Stop', enabled.stop, 'Stop the run (Shift+F5)')}
        {tool(
          'run.step',
          'Step',
          enabled.step,
          'Deliver the next record, barrier or end of input to one subtask (F10)',
        )}
        {tool(
          'run.toNextOperator',
          'Run to next operator',
          enabled.toNextOperator,
          "Run until a record reaches an operator other than this step's, or a breakpoint hits (Shift+F11)",
        )}
        {tool('run.stepBack', 'Step back', enabled.stepBack, 'Undo the last step (Shift+F10)')}
        {tool(
          'run.restart',
          'Restart from checkpoint…',
          enabled.restart,
          untilTrusted('Start again from a completed checkpoint of this job'),
        )}
        <label
          className="run-preview"
          title="Sinks show their records in the Debugger panel and write nothing"
        >
          <input
            type="checkbox"
            checked={previewSinks}
            disabled={!enabled.previewSinks}
            onChange={(e) => setPreviewSinks(e.target.checked)}
          />
          Preview sinks
        </label>
        <span
          className={`run-status run-status-${outdated ? 'outdated' : status}`}
          role="status"
          aria-label="Run status"
          title={notice === undefined ? statusText(state) : `${statusText(state)} — ${notice}`}
        >
          {statusText(state)}
          {notice !== undefined && <span className="run-notice-text"> — {notice}</span>}
        </span>
      </div>
      <RunDialogs />
    </>
  );
}
