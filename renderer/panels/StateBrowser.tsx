// The state browser: one subtask's keyed state, a page of keys at a time, found by key prefix.
// The engine reads the page from the subtask's store (map and list state one element per entry),
// so state far bigger than memory is browsed without ever being loaded whole. The page shown is
// read again as the run moves on (each metrics event or step), so it stays live.
import { useEffect, useRef, useState } from 'react';
import type { KeyTimersView, StateEntryView, StatePage } from '../../engine/protocol/protocol.js';
import { keyTimerLines } from '../run/eventTime';
import { Field } from '../run/Field';
import { KeyCompare } from '../run/KeyCompare';
import { useRun, useRunController } from '../run/runContext';
import { isActive } from '../run/runControls';
import { keyText } from '../run/stateCompare';
import { formatValue, inlineValue } from '../run/stepFormat';
import { formatBytes, formatCount } from '../run/units';

const PAGE_SIZE = 50;
const TYPING_PAUSE_MS = 250;

export interface BrowsableOperator {
  readonly id: string;
  readonly subtasks: readonly number[];
}

function elementsNote(entry: StateEntryView): string | undefined {
  if (entry.elementCount === undefined) return undefined;
  const shown = Array.isArray(entry.value)
    ? entry.value.length
    : typeof entry.value === 'object' && entry.value !== null
      ? Object.keys(entry.value).length
      : undefined;
  const n = formatCount(entry.elementCount);
  return shown === undefined || shown >= entry.elementCount
    ? `${n} element${entry.elementCount === 1 ? '' : 's'}`
    : `${n} elements, the first ${shown} shown`;
}

/** The row under a key that lists its timers ("event-time timer 12:00:10"). */
function timersRow(text: string, key: unknown, view: KeyTimersView) {
  const { count, lines } = keyTimerLines(view);
  return (
    <tr key={`${text}\u0000timers`} className="state-timers" aria-label={`Timers of ${text}`}>
      <td>
        <code>{inlineValue(key)}</code>
      </td>
      <td>timers</td>
      <td>{count}</td>
      <td colSpan={3}>
        <ul className="state-timer-list">
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </td>
    </tr>
  );
}

export function StateBrowser({ operators }: { operators: readonly BrowsableOperator[] }) {
  const controller = useRunController();
  const runId = useRun((s) => s.runId);
  const live = useRun((s) => isActive(s.status));
  // While the run is live, every measurement and every step is a reason to read the page again.
  const liveTick = useRun((s) => (isActive(s.status) ? s.metrics : undefined));
  const step = useRun((s) => s.step);
  const [chosenOperator, setOperator] = useState('');
  const [chosenSubtask, setSubtask] = useState(0);
  const [prefixInput, setPrefixInput] = useState('');
  const [prefix, setPrefix] = useState('');
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const [page, setPage] = useState<StatePage | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [refreshes, setRefreshes] = useState(0);
  const [compareKey, setCompareKey] = useState('');
  const request = useRef(0);

  const operator = operators.find((o) => o.id === chosenOperator) ?? operators[0];
  const subtask = operator?.subtasks.includes(chosenSubtask) ? chosenSubtask : (operator?.subtasks[0] ?? 0);
  const after = cursors[cursors.length - 1];
  const operatorId = operator?.id;

  useEffect(() => {
    const timer = setTimeout(() => setPrefix(prefixInput), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [prefixInput]);

  // Another operator, subtask, prefix or run starts from the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the reasons to go back to page one
  useEffect(() => setCursors([undefined]), [operatorId, subtask, prefix, runId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: liveTick, step and refreshes are reasons to read the page again
  useEffect(() => {
    if (operatorId === undefined || runId === undefined) return;
    const id = ++request.current;
    controller
      .statePage({
        operator: operatorId,
        subtask,
        limit: PAGE_SIZE,
        ...(prefix === '' ? {} : { prefix }),
        ...(after === undefined ? {} : { after }),
      })
      .then(
        (result) => {
          if (id !== request.current) return;
          setPage(result);
          setError(undefined);
        },
        (e: unknown) => {
          if (id !== request.current) return;
          setError(e instanceof Error ? e.message : String(e));
        },
      );
  }, [controller, runId, operatorId, subtask, prefix, after, liveTick, step, refreshes]);

  if (operator === undefined) return null;
  const pageNumber = cursors.length;
  const timersByKey = new Map((page?.timers ?? []).map((t) => [keyText(t.key), t]));

  return (
    <section className="state-browser" aria-label="State browser">
      <h3>State browser</h3>
      <div className="state-browser-controls">
        <Field label="Operator">
          {(id) => (
            <select id={id} value={operator.id} onChange={(e) => setOperator(e.target.value)}>
              {operators.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.id}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Subtask">
          {(id) => (
            <select id={id} value={subtask} onChange={(e) => setSubtask(Number(e.target.value))}>
              {operator.subtasks.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Key prefix">
          {(id) => (
            <input
              id={id}
              type="search"
              value={prefixInput}
              spellCheck={false}
              placeholder="e.g. o7"
              onChange={(e) => setPrefixInput(e.target.value)}
            />
          )}
        </Field>
        <button
          type="button"
          onClick={() => setRefreshes((n) => n + 1)}
          title={live ? 'Also read again every second' : undefined}
        >
          Refresh
        </button>
      </div>
      {error !== undefined && (
        <p className="error" role="alert">
          Could not read the state: {error}
        </p>
      )}
      {page !== undefined &&
        (page.entries.length === 0 ? (
          <p className="muted">
            {prefix === ''
              ? 'No state in this subtask yet.'
              : `No key of this subtask starts with “${prefix}”.`}
          </p>
        ) : (
          <table className="run-table state-entries" aria-label="State entries">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">State</th>
                <th scope="col">Type</th>
                <th scope="col">Value</th>
                <th scope="col">Size</th>
                <th scope="col">
                  <span className="visually-hidden">Compare</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.entries.flatMap((entry, k) => {
                const key = keyText(entry.key);
                const note = elementsNote(entry);
                // A key's timers follow its last state entry on the page.
                const lastOfKey = k + 1 === page.entries.length || keyText(page.entries[k + 1]!.key) !== key;
                const timers = lastOfKey ? timersByKey.get(key) : undefined;
                const row = (
                  <tr key={`${key}\u0000${entry.state}`}>
                    <td>
                      <code>{inlineValue(entry.key)}</code>
                    </td>
                    <td>{entry.state}</td>
                    <td>{entry.type}</td>
                    <td>
                      {note !== undefined && <div className="muted">{note}</div>}
                      <pre className="run-json run-json-small">{formatValue(entry.value)}</pre>
                    </td>
                    <td>{formatBytes(entry.bytes)}</td>
                    <td>
                      <button
                        type="button"
                        className="link"
                        aria-label={`Compare ${key} between checkpoints`}
                        onClick={() => setCompareKey(key)}
                      >
                        Compare
                      </button>
                    </td>
                  </tr>
                );
                return timers === undefined ? [row] : [row, timersRow(key, entry.key, timers)];
              })}
            </tbody>
          </table>
        ))}
      <div className="state-paging">
        <button type="button" disabled={pageNumber === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous
        </button>
        <span aria-live="polite">Page {pageNumber}</span>
        <button
          type="button"
          disabled={page?.next === undefined}
          onClick={() => {
            const next = page?.next;
            if (next !== undefined) setCursors((c) => [...c, next]);
          }}
        >
          Next
        </button>
      </div>
      <KeyCompare operator={operator.id} subtask={subtask} keyText={compareKey} onKeyText={setCompareKey} />
    </section>
  );
}
