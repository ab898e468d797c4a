// The state browser: an operator's keyed state. A key is found on whichever subtask holds it
// (KeyFinder), or one subtask's state is browsed a page of keys at a time, by key prefix; a key
// is compared between checkpoints (KeyCompare). The engine reads the page from the subtask's
// store (map and list state one element per entry, shown as rows a page at a time), so state far
// bigger than memory is browsed without ever being loaded whole. The page shown is read again
// as the run moves on (each metrics event or step), so it stays live.
import { useEffect, useRef, useState } from 'react';
import { keyText } from '../../engine/graph/index.js';
import type { KeyTimersView, StatePage } from '../../engine/protocol/protocol.js';
import { keyTimerLines } from '../run/eventTime';
import { Field } from '../run/Field';
import { KeyCompare } from '../run/KeyCompare';
import { KeyFinder } from '../run/KeyFinder';
import { useRun, useRunController } from '../run/runContext';
import { isActive } from '../run/runControls';
import { StateValue } from '../run/StateValue';
import { inlineValue } from '../run/stepFormat';
import { formatBytes } from '../run/units';

const PAGE_SIZE = 50;
const TYPING_PAUSE_MS = 250;

export interface BrowsableOperator {
  readonly id: string;
  readonly subtasks: readonly number[];
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
  const [findText, setFindText] = useState('');
  const [findAsked, setFindAsked] = useState(0);
  const request = useRef(0);
  const compareRef = useRef<HTMLDivElement>(null);
  const lookup = useRun((s) => s.stateLookup);

  const operator = operators.find((o) => o.id === chosenOperator) ?? operators[0];
  const subtask = operator?.subtasks.includes(chosenSubtask) ? chosenSubtask : (operator?.subtasks[0] ?? 0);
  const after = cursors[cursors.length - 1];
  const operatorId = operator?.id;

  useEffect(() => {
    const timer = setTimeout(() => setPrefix(prefixInput), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [prefixInput]);

  // The Debugger asked for a key's state: that operator, and the key found wherever it is.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new ask is a reason to find
  useEffect(() => {
    if (lookup === undefined) return;
    if (operators.some((o) => o.id === lookup.operator)) setOperator(lookup.operator);
    setFindText(keyText(lookup.key));
    setFindAsked((n) => n + 1);
  }, [lookup?.asked]);

  const compareKeyOf = (text: string) => {
    setCompareKey(text);
    // The form it fills is further down: brought into view where the user was.
    requestAnimationFrame(() => compareRef.current?.scrollIntoView({ block: 'nearest' }));
  };

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
      </div>
      <KeyFinder
        operator={operator.id}
        text={findText}
        onText={setFindText}
        asked={findAsked}
        onCompare={compareKeyOf}
      />
      <h4>Browse a subtask</h4>
      <div className="state-browser-controls">
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
                      <StateValue operator={operator.id} entry={entry} keyText={key} />
                    </td>
                    <td>{formatBytes(entry.bytes)}</td>
                    <td>
                      <button
                        type="button"
                        className="link"
                        aria-label={`Compare ${key} between checkpoints`}
                        onClick={() => compareKeyOf(key)}
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
      <div ref={compareRef}>
        <KeyCompare operator={operator.id} keyText={compareKey} onKeyText={setCompareKey} />
      </div>
    </section>
  );
}
