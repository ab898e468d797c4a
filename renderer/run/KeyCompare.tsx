// "Compare with checkpoint": one key's state as two checkpoints of the run (or a checkpoint and
// the live state) hold it, state by state: a value's before and after; of a map or list each
// element added, removed or changed, a page of changes at a time. Only the checkpoints still on
// disk are offered (the job keeps its last `checkpointsRetained`; the host lists them again as
// checkpoints complete), and the key is found on whichever subtask owns it on each side.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { keysOfText, keyText as textOf } from '../../engine/graph/index.js';
import type {
  CompareSide,
  ElementChangeView,
  KeyCompareView,
  StateCompareView,
} from '../../engine/protocol/protocol.js';
import { Field } from './Field';
import { useRun, useRunController } from './runContext';
import { ValueText } from './StateValue';
import { defaultSides, sideName } from './stateCompare';
import { formatCount } from './units';

const LIVE = 'live';
/** Changed elements of a map or list shown at a time. */
const CHANGES = 50;

type Result =
  | {
      readonly text: string;
      readonly from: CompareSide;
      readonly to: CompareSide;
      readonly views: KeyCompareView[];
    }
  | { readonly error: string };

const CHANGE_TEXT: Readonly<Record<NonNullable<StateCompareView['change']>, string>> = {
  added: 'added',
  removed: 'removed',
  changed: 'changed',
  same: 'same',
};

function ElementChanges({
  state,
  keyName,
  onMore,
}: {
  state: StateCompareView;
  keyName: string;
  onMore: (() => void) | undefined;
}) {
  const changes = state.changes ?? [];
  return (
    <>
      <div className="muted">
        {formatCount(state.countBefore ?? 0)} → {formatCount(state.countAfter ?? 0)} elements
        {state.unchanged !== undefined && state.unchanged > 0
          ? `; ${formatCount(state.unchanged)} the same`
          : ''}
      </div>
      {changes.length > 0 && (
        <table
          className="run-table state-element-table"
          aria-label={`Changes of ${state.state} of ${keyName}`}
        >
          <thead>
            <tr>
              <th scope="col">{state.type === 'map' ? 'Key' : '#'}</th>
              <th scope="col">Change</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c: ElementChangeView) => (
              <tr key={JSON.stringify(c.element)} className={`state-${c.change}`}>
                <td>{state.type === 'map' ? <ValueText value={c.element} /> : String(c.element)}</td>
                <td>{c.change}</td>
                <td>{'before' in c ? <ValueText value={c.before} /> : '—'}</td>
                <td>{'after' in c ? <ValueText value={c.after} /> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {onMore !== undefined && (
        <button
          type="button"
          className="link"
          aria-label={`More changes of ${state.state} of ${keyName}`}
          onClick={onMore}
        >
          More changes
        </button>
      )}
    </>
  );
}

function CompareTable({
  view,
  from,
  to,
  onMore,
}: {
  view: KeyCompareView;
  from: CompareSide;
  to: CompareSide;
  onMore: (state: StateCompareView) => void;
}) {
  const name = textOf(view.key);
  const where =
    view.fromSubtask === view.toSubtask
      ? `subtask ${view.toSubtask}`
      : `subtask ${view.fromSubtask} at ${sideName(from)}, ${view.toSubtask} at ${sideName(to)}`;
  return (
    <>
      <p>
        Key <code>{JSON.stringify(view.key)}</code> (key group {view.keyGroup}, {where})
      </p>
      <table className="run-table" aria-label={`State of ${name}: ${sideName(from)} and ${sideName(to)}`}>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">Change</th>
            <th scope="col">{sideName(from)}</th>
            <th scope="col">{sideName(to)}</th>
          </tr>
        </thead>
        <tbody>
          {view.states.map((state) => (
            <tr
              key={`${state.state}\u0000${state.type}`}
              className={state.change === undefined ? undefined : `state-${state.change}`}
            >
              <th scope="row">
                {state.state} <span className="muted">({state.type})</span>
              </th>
              <td>{state.change === undefined ? 'no change found yet' : CHANGE_TEXT[state.change]}</td>
              {state.type === 'value' ? (
                <>
                  <td>{'before' in state ? <ValueText value={state.before} /> : '(none)'}</td>
                  <td>{'after' in state ? <ValueText value={state.after} /> : '(none)'}</td>
                </>
              ) : (
                <td colSpan={2}>
                  <ElementChanges
                    state={state}
                    keyName={name}
                    onMore={state.next === undefined ? undefined : () => onMore(state)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function KeyCompare({
  operator,
  keyText,
  onKeyText,
}: {
  operator: string;
  keyText: string;
  onKeyText: (key: string) => void;
}) {
  const controller = useRunController();
  const runId = useRun((s) => s.runId);
  const status = useRun((s) => s.status);
  // A checkpoint completing is a reason to ask again which are there (older ones go as it does).
  const completed = useRun((s) => s.checkpoints.filter((c) => c.status === 'completed').length);
  const [there, setThere] = useState<{ ids: readonly number[]; retained: number } | undefined>(undefined);
  const [chosen, setChosen] = useState<{ from?: CompareSide; to?: CompareSide }>({});
  const [result, setResult] = useState<Result | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const resultRef = useRef<HTMLElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: completed and status are reasons to ask again
  useEffect(() => {
    if (runId === undefined) return;
    let current = true;
    controller.keyState('state.checkpoints', {}).then(
      (list) => {
        if (current) setThere(list);
      },
      () => {
        if (current) setThere({ ids: [], retained: 0 });
      },
    );
    return () => {
      current = false;
    };
  }, [controller, runId, completed, status]);

  // A result comes where the Compare button was pressed, below the form: brought into view.
  useEffect(() => {
    if (result !== undefined) resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [result]);

  const ids = there?.ids ?? [];
  const sides = defaultSides(ids, chosen);

  const compare = async (event: FormEvent) => {
    event.preventDefault();
    if (sides === undefined || keyText === '') return;
    setBusy(true);
    try {
      const views = await Promise.all(
        keysOfText(keyText).map((key) =>
          controller.keyState('state.compare', {
            operator,
            key,
            from: sides.from,
            to: sides.to,
            limit: CHANGES,
          }),
        ),
      );
      // A text that is a string and a number: what holds state on either side (or the string).
      const held = views.filter((v) => v.states.length > 0);
      setResult({ text: keyText, ...sides, views: held.length > 0 ? held : views.slice(0, 1) });
    } catch (e) {
      setResult({ error: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };

  const more = (view: KeyCompareView, state: StateCompareView) => {
    if (result === undefined || 'error' in result || state.next === undefined) return;
    const shown = result;
    controller
      .keyState('state.compare', {
        operator,
        key: view.key,
        from: shown.from,
        to: shown.to,
        state: state.state,
        type: state.type,
        after: state.next,
        limit: CHANGES,
      })
      .then(
        (page) => {
          const next = page.states[0];
          setResult((r) =>
            r !== shown
              ? r
              : {
                  ...shown,
                  views: shown.views.map((v) =>
                    v !== view
                      ? v
                      : {
                          ...v,
                          states: v.states.map((s) => {
                            if (s !== state) return s;
                            const { next: _, ...rest } = s;
                            return {
                              ...rest,
                              change: s.change ?? next?.change,
                              changes: [...(s.changes ?? []), ...(next?.changes ?? [])],
                              unchanged: (s.unchanged ?? 0) + (next?.unchanged ?? 0),
                              ...(next?.next === undefined ? {} : { next: next.next }),
                            };
                          }),
                        },
                  ),
                },
          );
        },
        (e: unknown) => setResult({ error: e instanceof Error ? e.message : String(e) }),
      );
  };

  const sideSelect = (label: string, value: CompareSide, set: (side: CompareSide) => void) => (
    <Field label={label}>
      {(id) => (
        <select
          id={id}
          value={String(value)}
          onChange={(e) => set(e.target.value === LIVE ? LIVE : Number(e.target.value))}
        >
          {ids.map((checkpoint) => (
            <option key={checkpoint} value={checkpoint}>
              checkpoint {checkpoint}
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
      {sides === undefined ? (
        <p className="muted">
          {there === undefined
            ? 'Looking for the checkpoints of this run…'
            : 'No checkpoint of this run is there to compare with yet.'}
        </p>
      ) : (
        <>
          <p className="muted">
            The checkpoints still on disk: the job keeps its last {there?.retained}, and deletes older ones as
            new ones complete.
          </p>
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
            {sideSelect('From checkpoint', sides.from, (from) => setChosen((c) => ({ ...c, from })))}
            {sideSelect('To checkpoint', sides.to, (to) => setChosen((c) => ({ ...c, to })))}
            <button type="submit" disabled={busy || keyText === ''}>
              Compare
            </button>
          </form>
        </>
      )}
      <section
        ref={resultRef}
        className="key-compare-result"
        aria-label={result === undefined ? undefined : 'Compare result'}
      >
        {result !== undefined &&
          ('error' in result ? (
            <p className="error" role="alert">
              Could not compare: {result.error}
            </p>
          ) : result.views.every((v) => v.states.length === 0) ? (
            <p className="muted">
              Key {result.text} has no state at {sideName(result.from)} nor at {sideName(result.to)}.
            </p>
          ) : (
            result.views.map((view) => (
              <CompareTable
                key={JSON.stringify(view.key)}
                view={view}
                from={result.from}
                to={result.to}
                onMore={(state) => more(view, state)}
              />
            ))
          ))}
      </section>
    </section>
  );
}
