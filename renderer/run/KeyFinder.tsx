// "Find a key": one key's state in an operator, whatever subtask holds it. The engine works out
// the owner from the key's key group (Flink's formula) and reads only that key, so nobody has
// to try each subtask in turn. A text that may be a string or another value ("7") is looked for
// as both. The result is read again as the run moves on, like the page of the browser.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { keyText as textOf } from '../../engine/graph/index.js';
import type { KeyStateView } from '../../engine/protocol/protocol.js';
import { keyTimerLines } from './eventTime';
import { Field } from './Field';
import { useRun, useRunController } from './runContext';
import { isActive } from './runControls';
import { StateValue } from './StateValue';
import { formatBytes } from './units';

function FoundKey({ operator, found }: { operator: string; found: KeyStateView }) {
  const name = textOf(found.key);
  const timers = found.timers === undefined ? undefined : keyTimerLines(found.timers);
  return (
    <>
      <p>
        Key <code>{JSON.stringify(found.key)}</code> is in key group {found.keyGroup}, on subtask{' '}
        {found.subtask}.
      </p>
      <table className="run-table state-entries" aria-label={`State of key ${name}`}>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
            <th scope="col">Size</th>
          </tr>
        </thead>
        <tbody>
          {found.entries.map((entry) => (
            <tr key={`${entry.state}\u0000${entry.type}`}>
              <th scope="row">{entry.state}</th>
              <td>{entry.type}</td>
              <td>
                <StateValue operator={operator} entry={entry} keyText={name} />
              </td>
              <td>{formatBytes(entry.bytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {timers !== undefined && (
        <div>
          {timers.count}:
          <ul className="state-timer-list" aria-label={`Timers of key ${name}`}>
            {timers.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

export function KeyFinder({
  operator,
  text,
  onText,
  asked,
  onCompare,
}: {
  operator: string;
  text: string;
  onText: (text: string) => void;
  /** Changes when someone else (the Debugger) asks to find `text`. */
  asked: number;
  onCompare: (text: string) => void;
}) {
  const controller = useRunController();
  const runId = useRun((s) => s.runId);
  const liveTick = useRun((s) => (isActive(s.status) ? s.metrics : undefined));
  const step = useRun((s) => s.step);
  const [looked, setLooked] = useState<{ text: string; operator: string; tries: number } | undefined>();
  const [found, setFound] = useState<readonly KeyStateView[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const request = useRef(0);
  const resultRef = useRef<HTMLDivElement>(null);

  const find = (event?: FormEvent) => {
    event?.preventDefault();
    if (text === '') return;
    setLooked((l) => ({ text, operator, tries: (l?.tries ?? 0) + 1 }));
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: an ask from elsewhere is a reason to find
  useEffect(() => {
    if (asked > 0) find();
  }, [asked]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: liveTick and step are reasons to read it again
  useEffect(() => {
    if (looked === undefined || runId === undefined) return;
    const id = ++request.current;
    controller.keyState('state.key', { operator: looked.operator, key: looked.text }).then(
      (result) => {
        if (id !== request.current) return;
        setFound(result.found);
        setError(undefined);
      },
      (e: unknown) => {
        if (id !== request.current) return;
        setFound(undefined);
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  }, [controller, runId, looked, liveTick, step]);

  // A new search's answer is brought into view where the Find button was pressed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new search is the reason to scroll
  useEffect(() => {
    if (found !== undefined || error !== undefined) resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [looked, found === undefined, error === undefined]);

  const holding = found?.filter((f) => f.entries.length > 0) ?? [];
  return (
    <section className="key-finder" aria-label="Find a key">
      <form className="state-browser-controls" onSubmit={find}>
        <Field label="Key">
          {(id) => (
            <input
              id={id}
              type="search"
              value={text}
              spellCheck={false}
              placeholder="e.g. o7, on any subtask"
              onChange={(e) => onText(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={text === ''}>
          Find
        </button>
      </form>
      <div ref={resultRef}>
        {error !== undefined && (
          <p className="error" role="alert">
            Could not find the key: {error}
          </p>
        )}
        {looked !== undefined && found !== undefined && (
          <section className="key-found" aria-label={`Key ${looked.text} in ${looked.operator}`}>
            {holding.length === 0 ? (
              <p className="muted">
                Key {looked.text} holds no state in {looked.operator}: it would be{' '}
                {found
                  .map(
                    (f) =>
                      `on subtask ${f.subtask} (key group ${f.keyGroup})${found.length > 1 ? ` as ${JSON.stringify(f.key)}` : ''}`,
                  )
                  .join(', or ')}
                .
              </p>
            ) : (
              holding.map((f) => (
                <FoundKey key={JSON.stringify(f.key)} operator={looked.operator} found={f} />
              ))
            )}
            {holding.length > 0 && (
              <button type="button" className="link" onClick={() => onCompare(looked.text)}>
                Compare this key between checkpoints
              </button>
            )}
          </section>
        )}
      </div>
    </section>
  );
}
