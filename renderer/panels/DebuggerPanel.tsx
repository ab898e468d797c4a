// The Debugger panel: the step the engine is at (or one picked from the history), the
// breakpoints of this document, the steps taken, and what preview sinks received.

import { BreakpointEditor } from '../run/BreakpointEditor';
import { PreviewOutput } from '../run/PreviewOutput';
import { useRun } from '../run/runContext';
import { StepDetails } from '../run/StepDetails';
import { StepHistory } from '../run/StepHistory';

function CurrentStep() {
  const shown = useRun((s) => s.shown);
  const current = useRun((s) => s.step);
  const status = useRun((s) => s.status);
  const mode = useRun((s) => s.mode);
  const view = useRun((s) => s.view);
  const restoredFrom = useRun((s) => s.restoredFrom);
  if (shown === undefined) {
    return (
      <div className="run-step run-empty">
        <p>
          {status === 'idle'
            ? 'Stepping through a run record by record: start it with Debug; each Step (F10) delivers one record, barrier or end of input to one subtask and shows here what it did, following each record through the job. Run to next operator (Shift+F11) goes on to where a record reaches another operator; right-click an operator on the canvas to break on it.'
            : mode === 'debug' && status === 'paused'
              ? restoredFrom === undefined
                ? 'Paused before the first step. Step (F10) delivers the first record.'
                : `Paused just after checkpoint ${restoredFrom}. Step (F10) delivers what comes next.`
              : mode === 'run'
                ? 'A run started with Run does not stop at steps; start it with Debug to step through it.'
                : 'No step yet: the run stops at the first breakpoint hit and shows it here.'}
        </p>
      </div>
    );
  }
  return (
    <div className="run-step-holder">
      {shown !== current && current !== undefined && (
        <p className="run-viewing" role="note">
          Showing step {shown.seq} from the history; the run is at step {current.seq}.{' '}
          <button type="button" className="link" onClick={() => view(undefined)}>
            Show the current step
          </button>
        </p>
      )}
      <StepDetails step={shown} />
    </div>
  );
}

export function DebuggerPanel() {
  return (
    <div className="debugger-panel">
      <CurrentStep />
      <div className="debugger-side">
        <BreakpointEditor />
        <StepHistory />
        <PreviewOutput />
      </div>
    </div>
  );
}
