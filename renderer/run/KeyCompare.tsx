// "Compare with checkpoint": one key's state in one subtask as two completed checkpoints of the
// run (or a checkpoint and the live state) hold it, side by side by state name.
import { type FormEvent, useState } from 'react';
import type { StateEntryView } from '../../engine/protocol/protocol.js';
import { Field } from './Field';
import { useRun, useRunController } from './runContext';
import { type CompareRow, compareEntries, entriesOfKey } from './stateCompare';
import { formatValue } from './stepFormat';

const LIVE = 'live';
/** Pages of a prefix read to find the exact key: other keys with the same prefix may come first. */
const MAX_PAGES = 20;
const PAGE_SIZE = 100;

type Side = typeof LIVE | number;

function sideName(side: Side): string {
  return side === LIVE ? 'live state' : `checkpoint ${side}`;
}

export function KeyCompare({
  operator,
  subtask,
  keyText,
  onKeyText,
}: {
  operator: string;
  subtask: number;
  keyText: string;
  onKeyText: (key: string) => void;
}) {
  const controller = useRunController();
  const checkpoints = useRun((s) => s.checkpoints);
  const completed = checkpoints.filter((c) => c.status === 'completed').map((c) => c.id);
  const [from, setFrom] = useState<Side | undefined>(undefined);
  const [to, setTo] = useState<Side | undefined>(undefined);
  const [result, setResult] = useState<
    { key: string; from: Side; to: Side; rows: CompareRow[] } | { error: string } | undefined
  >(undefined);
  const [busy, setBusy] = useState(false);

  const fromSide: Side | undefined = from ?? completed[completed.length - 2] ?? completed[0];
  const toSide: Side | undefined =
    to ?? completed[completed.length - 1] ?? (completed.length > 0 ? LIVE : undefined);

  const read = async (side: Side): Promise<StateEntryView[]> => {
    const found: StateEntryView[] = [];
    let after: string | undefined;
    for (let k = 0; k < MAX_PAGES; k++) {
      const page = await controller.statePage({
        operator,
        subtask,
        limit: PAGE_SIZE,
        prefix: keyText,
        ...(after === undefined ? {} : { after }),
        ...(side === LIVE ? {} : { checkpointId: side }),
      });
      found.push(...entriesOfKey(page.entries, keyText));
      if (page.next === undefined) break;
      after = page.next;
    }
    return found;
  };

  const compare = async (event: FormEvent) => {
    event.preventDefault();
    if (fromSide === undefined || toSide === undefined || keyText === '') return;
    setBusy(true);
    try {
      const [a, b] = await Promise.all([read(fromSide), read(toSide)]);
      setResult({ key: keyText, from: fromSide, to: toSide, rows: compareEntries(a, b) });
    } catch (e) {
      setResult({ error: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };

  const sideSelect = (label: string, value: Side | undefined, set: (side: Side) => void) => (
    <Field label={label}>
      {(id) => (
        <select
          id={id}
          value={value === undefined ? '' : String(value)}
          onChange={(e) => set(e.target.value === LIVE ? LIVE : Number(e.target.value))}
        >
          {completed.map((id) => (
            <option key={id} value={id}>
              checkpoint {id}
            </option>
          ))}
          <option value={LIVE}>live state</option>
        </select>
      )}
    </Field>
  );

  return (
    <section className="key-compare" aria-label="Compare with checkpoint">
      <h4>Compare with checkpoint</h4>
      {completed.length === 0 ? (
        <p className="muted">No checkpoint of this run has completed yet.</p>
      ) : (
        <form className="key-compare-form" onSubmit={compare}>
          <Field label="Key to compare">
            {(id) => (
              <input
                id={id}
                type="text"
                value={keyText}
                spellCheck={false}
                onChange={(e) => onKeyText(e.target.value)}
              />
            )}
          </Field>
          {sideSelect('From checkpoint', fromSide, setFrom)}
          {sideSelect('To checkpoint', toSide, setTo)}
          <button type="submit" disabled={busy || keyText === ''}>
            Compare
          </button>
        </form>
      )}
      {result !== undefined &&
        ('error' in result ? (
          <p className="error" role="alert">
            Could not compare: {result.error}
          </p>
        ) : result.rows.length === 0 ? (
          <p className="muted">
            Key {result.key} has no state in subtask {subtask} at {sideName(result.from)} nor at{' '}
            {sideName(result.to)}.
          </p>
        ) : (
          <table
            className="run-table"
            aria-label={`State of ${result.key}: ${sideName(result.from)} and ${sideName(result.to)}`}
          >
            <thead>
              <tr>
                <th scope="col">State</th>
                <th scope="col">{sideName(result.from)}</th>
                <th scope="col">{sideName(result.to)}</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row) => (
                <tr key={row.state}>
                  <td>
                    {row.state} <span className="muted">({row.type})</span>
                  </td>
                  <td>
                    <pre className="run-json run-json-small">
                      {row.from === undefined ? '(none)' : formatValue(row.from.value)}
                    </pre>
                  </td>
                  <td>
                    <pre className="run-json run-json-small">
                      {row.to === undefined ? '(none)' : formatValue(row.to.value)}
                    </pre>
                  </td>
                  <td>{row.changed ? 'changed' : 'same'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
