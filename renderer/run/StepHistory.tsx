// The steps shown in this run, newest first; picking one shows it (and marks it on the canvas)
// without moving the engine, which only Step and Step back do.
import { useRun } from './runContext';
import { stepKindText, subtaskName } from './stepFormat';

export function StepHistory() {
  const history = useRun((s) => s.history);
  const shown = useRun((s) => s.shown?.seq);
  const current = useRun((s) => s.step?.seq);
  const view = useRun((s) => s.view);
  if (history.length === 0) return null;
  return (
    <section className="run-history" aria-label="Step history">
      <h3>Steps</h3>
      <ol reversed className="run-history-list">
        {[...history].reverse().map((step) => (
          <li key={step.seq}>
            <button
              type="button"
              className={step.seq === shown ? 'run-history-item shown' : 'run-history-item'}
              aria-current={step.seq === shown ? 'step' : undefined}
              onClick={() => view(step.seq === current ? undefined : step.seq)}
            >
              {step.seq}. {subtaskName(step.operator, step.subtask)} — {stepKindText(step)}
              {step.breakpoint !== undefined && ` (${step.breakpoint})`}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
