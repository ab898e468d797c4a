// Breakpoints of the open document: on an operator (every record), on a condition over the
// record `r`, on a state key, on a timer firing (optionally one key's), on a watermark
// arriving, or on a row of a transaction operator's table (`accounts/a7`). Editable while no run races along (stopped, paused, or none);
// a paused run gets the new list at once, and the engine's problems with it show beside each.
import { type FormEvent, useState } from 'react';
import type { Breakpoint } from '../../engine/protocol/protocol.js';
import { type BreakpointDraft, describeBreakpoint, draftProblem } from './breakpoints';
import { Field } from './Field';
import { useRun, useRunController } from './runContext';
import { controlsEnabled } from './runControls';
import { breakpointsOf } from './runStore';
import { useOperatorIds } from './useOperatorIds';

type Kind = BreakpointDraft['type'];

export function BreakpointEditor() {
  const controller = useRunController();
  const breakpoints = useRun(breakpointsOf);
  const problems = useRun((s) => s.breakpointProblems);
  const hit = useRun((s) => s.shown?.breakpoint);
  const editable = useRun(
    (s) => controlsEnabled({ status: s.status, mode: s.mode, hasStep: false }).editBreakpoints,
  );
  const allOperators = useOperatorIds();
  const transactionOperators = useOperatorIds('transaction');
  const [kind, setKind] = useState<Kind>('condition');
  const [operator, setOperator] = useState('');
  const [expression, setExpression] = useState('');
  const [key, setKey] = useState('');
  const [row, setRow] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  // Only a transaction operator has rows.
  const operators = kind === 'row' ? transactionOperators : allOperators;

  const draft = (): BreakpointDraft => {
    switch (kind) {
      case 'operator':
        return { type: 'operator', operator };
      case 'condition':
        return { type: 'condition', operator, expression };
      case 'stateKey':
        return { type: 'stateKey', operator, key };
      case 'timer':
        return { type: 'timer', operator, key };
      case 'watermark':
        return { type: 'watermark', operator };
      case 'row':
        return { type: 'row', operator: operators.includes(operator) ? operator : '', row };
    }
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    const d = draft();
    const wrong = draftProblem(d);
    setProblem(wrong);
    if (wrong !== undefined) return;
    void controller.addBreakpoint(d);
    setExpression('');
    setKey('');
    setRow('');
  };

  const problemOf = (bp: Breakpoint) => problems.find((p) => p.id === bp.id)?.message;

  return (
    <section className="run-breakpoints" aria-label="Breakpoints">
      <h3>Breakpoints</h3>
      <form onSubmit={add} aria-label="New breakpoint">
        <fieldset disabled={!editable} className="run-bp-form">
          <Field label="Breakpoint type">
            {(id) => (
              <select id={id} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
                <option value="operator">Operator (any record)</option>
                <option value="condition">Condition</option>
                <option value="stateKey">State key</option>
                <option value="timer">Timer fires</option>
                <option value="watermark">Watermark arrives</option>
                <option value="row">Transaction row</option>
              </select>
            )}
          </Field>
          <Field label="Breakpoint operator">
            {(id) => (
              <select id={id} value={operator} onChange={(e) => setOperator(e.target.value)}>
                <option value="">{kind === 'operator' ? 'Choose an operator' : 'Any operator'}</option>
                {operators.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {kind === 'condition' && (
            <Field label="Condition">
              {(id) => (
                <input
                  id={id}
                  type="text"
                  className="run-code-input"
                  value={expression}
                  placeholder='r.owner === "o7"'
                  spellCheck={false}
                  onChange={(e) => setExpression(e.target.value)}
                />
              )}
            </Field>
          )}
          {(kind === 'stateKey' || kind === 'timer') && (
            <Field label={kind === 'timer' ? 'Timer key' : 'State key'}>
              {(id) => (
                <input
                  id={id}
                  type="text"
                  className="run-code-input"
                  value={key}
                  placeholder={kind === 'timer' ? 'any key' : 'o7'}
                  spellCheck={false}
                  onChange={(e) => setKey(e.target.value)}
                />
              )}
            </Field>
          )}
          {kind === 'row' && (
            <Field label="Row">
              {(id) => (
                <input
                  id={id}
                  type="text"
                  className="run-code-input"
                  value={row}
                  placeholder="accounts/a7"
                  title="table/key: a step that runs a transaction reading or writing this row stops"
                  spellCheck={false}
                  onChange={(e) => setRow(e.target.value)}
                />
              )}
            </Field>
          )}
          <button type="submit">Add breakpoint</button>
        </fieldset>
        {problem !== undefined && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {!editable && <p className="muted">Pause or stop the run to change breakpoints.</p>}
      </form>
      {breakpoints.length === 0 ? (
        <p className="muted">
          No breakpoints. Debug stops before the first step; with breakpoints it runs to the first hit.
        </p>
      ) : (
        <ul className="run-bp-list" aria-label="Breakpoint list">
          {breakpoints.map((bp) => {
            const wrong = problemOf(bp);
            return (
              <li key={bp.id} className={hit === bp.id ? 'run-bp-hit' : undefined}>
                <span className="run-bp-id">{bp.id}</span>
                <code className="run-bp-text">{describeBreakpoint(bp)}</code>
                {hit === bp.id && <span className="run-bp-badge">hit</span>}
                <button
                  type="button"
                  className="link"
                  disabled={!editable}
                  aria-label={`Remove breakpoint ${bp.id}`}
                  onClick={() => void controller.removeBreakpoint(bp.id)}
                >
                  Remove
                </button>
                {wrong !== undefined && <span className="error run-bp-problem">{wrong}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
