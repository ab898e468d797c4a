// One step as the Debugger panel shows it: the record delivered (or the watermark, or the timer
// that fired), where it came from, the watermarks that came just before it and fired nothing,
// the transactions it ran (TransactionDetails), what the operator emitted and to which port and
// edges, and the state it read and wrote. What is shown follows from the StepView alone, so a
// step shown again after stepping back reads the same. A trace opens where it was asked for:
// under the record, or under the emitted record's row.
import { useEffect, useId, useRef, useState } from 'react';
import type { StepView, TraceView } from '../../engine/protocol/protocol.js';
import { useDesigner } from '../store/designerContext';
import { eventTimeTitle, formatEventTime } from './eventTime';
import { useRun, useRunController } from './runContext';
import { hasState } from './stateSizes';
import {
  accessRow,
  formatValue,
  inlineValue,
  operatorWatermarkText,
  stepHeading,
  stepKindText,
  stepOrigin,
  watermarkPassText,
} from './stepFormat';
import { TraceDetails } from './TraceDetails';
import { TransactionDetails } from './TransactionDetails';
import { useIsSink } from './useIsSink';

/** What is traced: an emitted record by its index, or the record the step took. */
type TraceTarget = number | 'received';

function targetName(target: TraceTarget, sink: boolean): string {
  if (target !== 'received') return `emitted record ${target + 1}`;
  return sink ? 'this output record' : 'this record';
}

/** A trace belongs to the step object it was asked for; another step shown hides it. */
type TraceState = { readonly step: StepView; readonly target: TraceTarget } & (
  | { readonly status: 'loading' }
  | { readonly status: 'done'; readonly trace: TraceView }
  | { readonly status: 'failed'; readonly message: string }
);

/** A trace asked for, where it was asked for; brought into view once it is there. */
function TraceResult({ trace, sink }: { trace: TraceState; sink: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (trace.status !== 'loading') ref.current?.scrollIntoView({ block: 'nearest' });
  }, [trace.status]);
  const name = targetName(trace.target, sink);
  return (
    <div ref={ref}>
      {trace.status === 'loading' ? (
        <p className="muted">Tracing {name}…</p>
      ) : trace.status === 'failed' ? (
        <p className="error" role="alert">
          Could not trace {name}: {trace.message}
        </p>
      ) : (
        <TraceDetails trace={trace.trace} label={`Trace of ${name}`} />
      )}
    </div>
  );
}

/** "Show this key's state": the State panel, the key found on whichever subtask has it. */
function ShowKeyState({ operator, stateKey }: { operator: string; stateKey: unknown }) {
  const keyed = useRun(
    (s) => s.metrics?.operators.some((o) => o.id === operator && o.subtasks.some(hasState)) ?? false,
  );
  const lookUpState = useRun((s) => s.lookUpState);
  const setBottomTab = useDesigner((s) => s.setBottomTab);
  if (!keyed) return null;
  return (
    <p className="run-key-state">
      <button
        type="button"
        className="link"
        onClick={() => {
          lookUpState(operator, stateKey);
          setBottomTab('State');
        }}
      >
        Show the state of key {inlineValue(stateKey, 60)}
      </button>
    </p>
  );
}

export function StepDetails({ step }: { step: StepView }) {
  const controller = useRunController();
  const recordHeading = useId();
  const watermarksHeading = useId();
  const [asked, setTrace] = useState<TraceState | undefined>(undefined);
  const trace = asked?.step === step ? asked : undefined;

  const sink = useIsSink(step.operator);

  const showTrace = (target: TraceTarget) => {
    const current = (t: TraceState | undefined) => t?.step === step && t.target === target;
    setTrace({ step, target, status: 'loading' });
    controller.trace(step.seq, target).then(
      (view) => setTrace((t) => (current(t) ? { step, target, status: 'done', trace: view } : t)),
      (error: unknown) =>
        setTrace((t) =>
          current(t)
            ? {
                step,
                target,
                status: 'failed',
                message: error instanceof Error ? error.message : String(error),
              }
            : t,
        ),
    );
  };

  return (
    <article className="run-step" aria-label="Current step">
      <h3 className="run-step-heading">{stepHeading(step)}</h3>
      <dl className="run-facts">
        <dt>Operator</dt>
        <dd>
          {step.operator} <span className="muted">subtask</span> {step.subtask}
        </dd>
        <dt>Kind</dt>
        <dd>{stepKindText(step)}</dd>
        <dt>{step.kind === 'timer' ? 'Fired because' : 'Came through'}</dt>
        <dd>{stepOrigin(step)}</dd>
        {step.kind === 'watermark' && step.watermark !== undefined && (
          <>
            <dt>Watermark</dt>
            <dd title={eventTimeTitle(step.watermark)}>{formatEventTime(step.watermark)}</dd>
          </>
        )}
        {(step.kind === 'watermark' || step.kind === 'idle') && (
          <>
            <dt>Subtask's watermark</dt>
            <dd
              title={
                step.operatorWatermark === undefined ? undefined : eventTimeTitle(step.operatorWatermark)
              }
            >
              {operatorWatermarkText(step)}
            </dd>
          </>
        )}
        {step.timer !== undefined && (
          <>
            <dt>Timer</dt>
            <dd title={eventTimeTitle(step.timer.timestamp)}>
              {step.timer.domain === 'eventTime' ? 'event time' : 'processing time'}{' '}
              {formatEventTime(step.timer.timestamp)}
            </dd>
          </>
        )}
        {step.key !== undefined && (
          <>
            <dt>Key</dt>
            <dd>
              <code>{inlineValue(step.key)}</code>
            </dd>
          </>
        )}
        {step.breakpoint !== undefined && (
          <>
            <dt>Breakpoint</dt>
            <dd>{step.breakpoint}</dd>
          </>
        )}
      </dl>
      {step.key !== undefined && <ShowKeyState operator={step.operator} stateKey={step.key} />}
      {step.watermarks !== undefined && (
        <section aria-labelledby={watermarksHeading}>
          <h4 id={watermarksHeading}>Watermarks before this step</h4>
          <p className="muted">They fired no timer, so they are shown here, not as steps of their own.</p>
          <ul className="run-watermarks">
            {step.watermarks.map((pass) => (
              <li
                key={`${pass.operator}#${pass.subtask} ${pass.edge.id}#${pass.edge.fromSubtask} ${pass.watermark}`}
              >
                {watermarkPassText(pass)}
              </li>
            ))}
          </ul>
        </section>
      )}
      {step.record !== undefined && (
        <section aria-labelledby={recordHeading}>
          <h4 id={recordHeading}>Record</h4>
          <pre className="run-json">{formatValue(step.record)}</pre>
          {step.kind === 'record' && (
            <button
              type="button"
              className="link"
              aria-pressed={trace?.target === 'received'}
              onClick={() => (trace?.target === 'received' ? setTrace(undefined) : showTrace('received'))}
            >
              {sink ? 'Trace this output record' : 'Trace this record'}
            </button>
          )}
          {trace?.target === 'received' && <TraceResult trace={trace} sink={sink} />}
        </section>
      )}
      {step.transactions !== undefined && (
        <TransactionDetails operator={step.operator} transactions={step.transactions} />
      )}
      <h4>Emitted</h4>
      {step.emitted.length === 0 ? (
        <p className="muted">Nothing emitted.</p>
      ) : (
        <table className="run-table" aria-label="Emitted records">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Port</th>
              <th scope="col">Record</th>
              <th scope="col">Edges</th>
              <th scope="col">
                <span className="visually-hidden">Trace</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {step.emitted.flatMap((e, k) => {
              const row = (
                // biome-ignore lint/suspicious/noArrayIndexKey: an emitted record is its position in the step
                <tr key={k}>
                  <td>{k + 1}</td>
                  <td>{e.port}</td>
                  <td>
                    <code>{inlineValue(e.record)}</code>
                  </td>
                  <td>{e.edges.length === 0 ? '—' : e.edges.join(', ')}</td>
                  <td>
                    <button
                      type="button"
                      className="link"
                      aria-label={`Trace emitted record ${k + 1}`}
                      aria-pressed={trace?.target === k}
                      onClick={() => (trace?.target === k ? setTrace(undefined) : showTrace(k))}
                    >
                      Trace
                    </button>
                  </td>
                </tr>
              );
              if (trace?.target !== k) return [row];
              // The trace opens under the row whose Trace was pressed.
              return [
                row,
                // biome-ignore lint/suspicious/noArrayIndexKey: the trace of the emitted record at that position
                <tr key={`${k} trace`} className="run-trace-row">
                  <td colSpan={5}>
                    <TraceResult trace={trace} sink={sink} />
                  </td>
                </tr>,
              ];
            })}
          </tbody>
        </table>
      )}
      <h4>State</h4>
      {step.state.length === 0 ? (
        <p className="muted">No state read or written.</p>
      ) : (
        <table className="run-table" aria-label="State accesses">
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Type</th>
              <th scope="col">Access</th>
              <th scope="col">Key</th>
              <th scope="col">Element</th>
              <th scope="col">Before → after</th>
            </tr>
          </thead>
          <tbody>
            {step.state.map((access, k) => {
              const row = accessRow(access);
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: accesses are in the order the operator made them
                <tr key={k}>
                  <td>{row.state}</td>
                  <td>{row.type}</td>
                  <td>{row.op}</td>
                  <td>
                    <code>{row.key}</code>
                  </td>
                  <td>
                    <code>{row.element}</code>
                  </td>
                  <td>
                    <code>{row.change}</code>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </article>
  );
}
