// The inspector of one operator: its id, kind and parallelism, then its parameters as the
// kind's zod schema describes them, then its ports. Every value is written to the store as it
// is edited; the engine's validator says, beside each input, what is wrong with it.

import { lazy, type RefObject, Suspense, useEffect, useId } from 'react';
import { getKind, ID_PATTERN, kindFields, operatorSchema, type Problem } from '../../engine/graph/index.js';
import { findOperator } from '../document/draftEdits';
import { isObject, type JsonObject, operatorIds, operatorKind } from '../document/jobDraft';
import { useDesigner, useDesignerStore } from '../store/designerContext';
import { problemsOf } from '../store/selectors';
import { formFields, paramPatch } from './applicableFields';
import { ConnectionTest } from './ConnectionTest';
import { suggestedReference } from './envReferences';
import { FieldPlaceContext } from './fieldOwner';
import { PortList } from './PortList';
import { OtherProblems, ProblemNotes } from './ProblemNotes';
import { elementPath, inlineMessage, otherProblems, problemsAt } from './problemPaths';
import { SchemaField } from './SchemaField';
import { describeField, formatFieldValue, parseFieldText } from './schemaFields';
import { TextField } from './TextField';

// CodeMirror is a third of the renderer's code and only the inspector of a code operator needs
// it: loading it on first use keeps it off the path to the first render of a job.
const CodeField = lazy(() => import('./CodeField').then((m) => ({ default: m.CodeField })));

const parallelismField = describeField('parallelism', operatorSchema.options[0].shape.parallelism);

export interface OperatorFormProps {
  readonly id: string;
  /**
   * Set to the new id by a rename committed with Enter: the form remounts under that id and
   * its Id input takes the keyboard focus back, where the user left it.
   */
  readonly renamedTo: RefObject<string | undefined>;
}

export function OperatorForm({ id, renamedTo }: OperatorFormProps) {
  const store = useDesignerStore();
  const draft = useDesigner((s) => s.draft);
  const problems = useDesigner(problemsOf);
  const paramsHeading = useId();
  const focusId = renamedTo.current === id;
  useEffect(() => {
    if (renamedTo.current === id) renamedTo.current = undefined;
  }, [id, renamedTo]);
  const op = draft === undefined ? undefined : findOperator(draft, id);
  const path = draft === undefined ? undefined : elementPath(draft, 'operators', id);
  if (draft === undefined || op === undefined || path === undefined) return null;

  const kind = operatorKind(op);
  const params: JsonObject = isObject(op.params) ? op.params : {};
  const shown = new Set<Problem>();
  const inline = (...rest: (string | number)[]): string[] => {
    const found = problemsAt(problems, [...path, ...rest]);
    for (const p of found) shown.add(p);
    return found.map(inlineMessage);
  };
  const idProblems = inline('id');
  const kindProblems = inline('kind');
  const parallelismProblems = inline('parallelism');
  const descriptor = kind === undefined ? undefined : getKind(kind);
  // Only the fields that apply to the params as they are now (a tumbling window has no slide).
  const fields = descriptor === undefined ? [] : formFields(descriptor, kindFields(descriptor), params);
  const fieldProblems = new Map(fields.map(({ field }) => [field.name, inline('params', field.name)]));
  const rest = otherProblems(problems, id, path, shown);
  const connectionParams = new Set(descriptor?.designer.connectionParams ?? []);

  const parseId = (text: string) => {
    const next = text.trim();
    if (next === id) return { ok: true as const, value: next };
    if (!ID_PATTERN.test(next))
      return {
        ok: false as const,
        message: `An id is 1 to 64 letters, digits, "_" or "-". The id stays "${id}".`,
      };
    if (operatorIds(draft).has(next))
      return {
        ok: false as const,
        message: `"${next}" is the id of another operator. The id stays "${id}".`,
      };
    return { ok: true as const, value: next };
  };

  const parseParallelism = (text: string) => {
    const parsed = parseFieldText(parallelismField, text);
    if (parsed.ok && parsed.value === undefined)
      return { ok: false as const, message: 'Parallelism needs a whole number, 1 or more.' };
    return parsed;
  };

  const setParam = (name: string, value: JsonObject[string] | undefined) =>
    store.getState().updateOperator(
      id,
      {
        params: descriptor === undefined ? { [name]: value } : paramPatch(descriptor, params, name, value),
      },
      `${id}.params.${name}`,
    );

  return (
    <FieldPlaceContext.Provider value={{ owner: { kind: 'operator', id }, path }}>
      <header className="inspector-header">
        <h2>
          <span className="inspector-what">Operator</span> {id}
        </h2>
        {descriptor !== undefined && (
          <span className={`role-badge role-${descriptor.designer.group}`}>{descriptor.designer.group}</span>
        )}
      </header>

      <section className="inspector-section" aria-label="Operator">
        <TextField
          label="Id"
          value={id}
          format={(v) => String(v ?? '')}
          parse={parseId}
          commitOn="enter"
          onCommit={(value, how) => {
            if (how === 'enter') renamedTo.current = String(value);
            store.getState().updateOperator(id, { id: String(value) });
          }}
          at={['id']}
          autoFocus={focusId}
          help="Letters, digits, _ and -. Enter renames (edges follow); Escape goes back."
          problems={idProblems}
        />
        <dl className="facts">
          <div>
            <dt>Kind</dt>
            <dd title={descriptor?.designer.label ?? 'unknown kind'}>
              {descriptor?.designer.label ?? 'Unknown kind'}{' '}
              <code>{typeof op.kind === 'string' ? op.kind : JSON.stringify(op.kind)}</code>
            </dd>
          </div>
        </dl>
        {kindProblems.length > 0 && <ProblemNotes messages={kindProblems} />}
        <TextField
          label="Parallelism"
          at={['parallelism']}
          value={op.parallelism}
          format={(v) => formatFieldValue(parallelismField, v)}
          parse={parseParallelism}
          onCommit={(value) =>
            typeof value === 'number' &&
            store.getState().updateOperator(id, { parallelism: value }, `${id}.parallelism`)
          }
          inputMode="numeric"
          placeholder={`${formatFieldValue(parallelismField, parallelismField.defaultValue)} (default)`}
          help="How many subtasks run this operator side by side: 1 up to the job's max parallelism."
          problems={parallelismProblems}
        />
      </section>

      <section className="inspector-section" aria-labelledby={paramsHeading}>
        <h3 id={paramsHeading}>Parameters</h3>
        {kind === undefined ? (
          <p className="inspector-note">
            The kind is not one this version knows, so its parameters cannot be edited here.
          </p>
        ) : (
          fields.map(({ field, note }) =>
            field.type === 'code' ? (
              <Suspense
                key={field.name}
                fallback={<p className="inspector-note">Loading the code editor…</p>}
              >
                <CodeField
                  operatorId={id}
                  kind={kind}
                  value={params[field.name]}
                  required={field.required}
                  help={field.description}
                  problems={fieldProblems.get(field.name)}
                />
              </Suspense>
            ) : (
              <SchemaField
                key={field.name}
                field={field}
                at={['params', field.name]}
                value={params[field.name]}
                onChange={(value) => setParam(field.name, value)}
                note={note}
                problems={fieldProblems.get(field.name)}
                connection={
                  connectionParams.has(field.name)
                    ? { suggested: suggestedReference(descriptor?.designer.defaultParams[field.name]) }
                    : undefined
                }
              />
            ),
          )
        )}
      </section>

      {kind !== undefined && connectionParams.size > 0 && (
        <ConnectionTest key={id} operatorId={id} kind={kind} params={params} />
      )}

      <PortList draft={draft} id={id} />

      <OtherProblems messages={rest.map((p) => p.message)} />
    </FieldPlaceContext.Provider>
  );
}
