// One step as the Debugger panel shows it: the record delivered (or the watermark, or the timer
// that fired), where it came from, the transactions it ran (TransactionDetails), what the
// operator emitted and to which port and edges, and the state it read and wrote. What is shown
// follows from the StepView alone, so a step shown again after stepping back reads the same.
// A keyed step's key opens in the State panel, found on whichever subtask holds it.
import { useId, useState } from 'react';
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
} from './stepFormat';
import { TraceDetails } from './TraceDetails';
import { TransactionDetails } from './TransactionDetails';
import { useIsSink } from './useIsSink';

/** What is traced: an emitted record by its index, or the record a sink step wrote. */
type TraceTarget = number | 'output';

function targetName(target: TraceTarget): string {
  return target === 'output' ? 'the output record' : `emitted record ${target + 1}`;
}

/** A trace belongs to the step object it was asked for; another step shown hides it. */
type TraceState = { readonly step: StepView; readonly target: TraceTarget } & (
  | { readonly status: 'loading' }
  | { readonly status: 'done'; readonly trace: TraceView }
  | { readonly status: 'failed'; readonly message: string }
);

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
  const [asked, setTrace] = useState<TraceState | undefined>(undefined);
  const trace = asked?.step === step ? asked : undefined;

  const sink = useIsSink(step.operator);

  const showTrace = (target: TraceTarget) => {
    const current = (t: TraceState | undefined) => t?.step === step && t.target === target;
    setTrace({ step, target, status: 'loading' });
    controller.trace(step.seq, target === 'output' ? 0 : target).then(
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
      {step.record !== undefined && (
        <section aria-labelledby={recordHeading}>
          <h4 id={recordHeading}>Record</h4>
          <pre className="run-json">{formatValue(step.record)}</pre>
          {sink && step.kind === 'record' && (
            <button
              type="button"
              className="link"
              aria-label="Trace the output record"
              aria-pressed={trace?.target === 'output'}
              onClick={() => (trace?.target === 'output' ? setTrace(undefined) : showTrace('output'))}
            >
              Trace this output record
            </button>
          )}
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
            {step.emitted.map((e, k) => (
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
            ))}
          </tbody>
        </table>
      )}
      {trace !== undefined &&
        (trace.status === 'loading' ? (
          <p className="muted">Tracing {targetName(trace.target)}…</p>
        ) : trace.status === 'failed' ? (
          <p className="error" role="alert">
            Could not trace {targetName(trace.target)}: {trace.message}
          </p>
        ) : (
          <TraceDetails trace={trace.trace} label={`Trace of ${targetName(trace.target)}`} />
        ))}
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
