// Where an emitted record came from: the input records it descends from and the path through
// operators, subtasks and state keys that produced it, as the engine's trace tells it, with the
// steps (and their input records) that last wrote the state each hop read.
import type { StateSourceView, TraceView } from '../../engine/protocol/protocol.js';
import { inlineValue, subtaskName } from './stepFormat';

function StateSource({ source }: { source: StateSourceView }) {
  const what = `${source.state} of ${inlineValue(source.key)}${'element' in source ? ` ▸ ${inlineValue(source.element)}` : ''}`;
  return (
    <li>
      read {what}, written at step {source.step} by {subtaskName(source.operator, source.subtask)}
      {source.input !== undefined && (
        <>
          {' '}
          from{' '}
          {source.input.where ??
            `${subtaskName(source.input.operator, source.input.subtask)} @${source.input.position}`}{' '}
          <code>{inlineValue(source.input.record)}</code>
        </>
      )}
    </li>
  );
}

/**
 * Why a trace has no input record: a source made the record, or a timer did from state (its
 * path's hops say what state they read and which records wrote it).
 */
function noInputText(trace: TraceView): string {
  const first = trace.path[0];
  if (first === undefined) return 'No input record.';
  const fromState = trace.path.some((hop) => hop.stateFrom !== undefined);
  return `No input record: made at step ${first.step} by ${subtaskName(first.operator, first.subtask)}${fromState ? ', from the state read below' : ''}.`;
}

export function TraceDetails({ trace, label }: { trace: TraceView; label: string }) {
  return (
    <section className="run-trace" aria-label={label}>
      <h4>Input records</h4>
      {trace.inputs.length === 0 ? (
        <p className="muted">{noInputText(trace)}</p>
      ) : (
        <table className="run-table" aria-label="Trace inputs">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Where</th>
              <th scope="col">Record</th>
            </tr>
          </thead>
          <tbody>
            {trace.inputs.map((input) => (
              <tr key={`${input.operator}#${input.subtask}@${input.position}`}>
                <td>{subtaskName(input.operator, input.subtask)}</td>
                <td>{input.where ?? `position ${input.position}`}</td>
                <td>
                  <code>{inlineValue(input.record)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Path</h4>
      <ol className="run-trace-path" aria-label="Trace path">
        {trace.path.map((hop) => (
          <li key={hop.step}>
            step {hop.step}: <strong>{subtaskName(hop.operator, hop.subtask)}</strong>
            {hop.stateKeys.length > 0 && (
              <span className="muted">
                {' '}
                — state keys {hop.stateKeys.map((k) => inlineValue(k)).join(', ')}
              </span>
            )}
            {hop.stateFrom !== undefined && (
              <ul className="run-trace-state" aria-label={`State read at step ${hop.step}`}>
                {hop.stateFrom.map((source) => (
                  <StateSource
                    key={`${source.state}|${inlineValue(source.key)}|${inlineValue(source.element)}`}
                    source={source}
                  />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
