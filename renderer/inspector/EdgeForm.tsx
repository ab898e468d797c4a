// The inspector of one edge: where it runs (read-only; the canvas draws that), how records are
// partitioned over it, its key when hashed, and whether it is a feedback edge.
import { useId } from 'react';
import { edgeSchema, type Partition, type Problem } from '../../engine/graph/index.js';
import { broadcastByPlan } from '../canvas/edgeLabel';
import { findEdge, findOperator } from '../document/draftEdits';
import { edgePort, type JsonValue, stringField } from '../document/jobDraft';
import { useDesigner, useDesignerStore } from '../store/designerContext';
import { problemsOf } from '../store/selectors';
import { CheckboxField } from './CheckboxField';
import { ElementLink } from './ElementLink';
import { FieldPlaceContext } from './fieldOwner';
import { OtherProblems, ProblemNotes } from './ProblemNotes';
import { elementPath, inlineMessage, otherProblems, problemsAt } from './problemPaths';
import { SelectField } from './SelectField';
import { describeFields, type FieldDescriptor, splitList } from './schemaFields';
import { TextField } from './TextField';

const fields = new Map(describeFields(edgeSchema).map((field) => [field.name, field]));
const partitionField = fields.get('partition') as Extract<FieldDescriptor, { type: 'enum' }>;
const keyField = fields.get('key')!;
const feedbackField = fields.get('feedback')!;

// The contract's words for each partitioning (docs/job-file.md, "Edges").
const PARTITION_HELP: Readonly<Record<Partition, string>> = {
  forward: 'Subtask i sends to subtask i; both operators need the same parallelism.',
  rebalance: 'Records go round robin to the downstream subtasks.',
  hash: 'Records with the same key go to the same subtask, which holds that key’s state.',
  broadcast: 'Every record goes to every downstream subtask.',
};

/** "owner" stays a field path; "from, to" is a composite key. */
function parseKey(text: string) {
  const paths = splitList(text);
  const value: JsonValue | undefined = paths.length === 0 ? undefined : paths.length === 1 ? paths[0] : paths;
  return { ok: true as const, value };
}

function formatKey(value: JsonValue | undefined): string {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

export function EdgeForm({ id }: { id: string }) {
  const store = useDesignerStore();
  const draft = useDesigner((s) => s.draft);
  const problems = useDesigner(problemsOf);
  const routeHeading = useId();
  const edge = draft === undefined ? undefined : findEdge(draft, id);
  const path = draft === undefined ? undefined : elementPath(draft, 'edges', id);
  if (edge === undefined || path === undefined) return null;

  const shown = new Set<Problem>();
  const inline = (field: string): string[] => {
    const found = problemsAt(problems, [...path, field]);
    for (const p of found) shown.add(p);
    return found.map(inlineMessage);
  };
  const routeProblems = [...inline('from'), ...inline('fromPort'), ...inline('to')];
  const partitionProblems = inline('partition');
  const keyProblems = inline('key');
  const feedbackProblems = inline('feedback');
  const rest = otherProblems(problems, id, path, shown);

  const from = stringField(edge, 'from');
  const to = stringField(edge, 'to');
  const partition = stringField(edge, 'partition');
  const update = store.getState().updateEdge;
  const broadcast = broadcastByPlan(edge, to === undefined ? undefined : findOperator(draft!, to)?.kind);

  return (
    <FieldPlaceContext.Provider value={{ owner: { kind: 'edge', id }, path }}>
      <header className="inspector-header">
        <h2>
          <span className="inspector-what">Edge</span> {id}
        </h2>
        {edge.feedback === true && <span className="role-badge role-feedback">feedback</span>}
      </header>

      <section className="inspector-section" aria-labelledby={routeHeading}>
        <h3 id={routeHeading}>Route</h3>
        <dl className="facts">
          <div>
            <dt>From</dt>
            <dd>{from === undefined ? '—' : <ElementLink kind="operator" id={from} />}</dd>
          </div>
          <div>
            <dt>Port</dt>
            <dd>
              <code>{edgePort(edge)}</code>
            </dd>
          </div>
          <div>
            <dt>To</dt>
            <dd>{to === undefined ? '—' : <ElementLink kind="operator" id={to} />}</dd>
          </div>
        </dl>
        {routeProblems.length > 0 && <ProblemNotes messages={routeProblems} />}
      </section>

      <section className="inspector-section" aria-label="Partitioning">
        <SelectField
          label={partitionField.label}
          jsonKey="partition"
          value={edge.partition}
          options={partitionField.options}
          required
          help={
            partition !== undefined && partition in PARTITION_HELP
              ? PARTITION_HELP[partition as Partition]
              : undefined
          }
          problems={partitionProblems}
          onChange={(value) => value !== undefined && update(id, { partition: value as Partition })}
        />
        {broadcast && (
          <p className="field-planned">
            Into a transaction every subtask takes every record, in one order: the engine broadcasts this edge
            whatever its partitioning says, and the canvas labels it <code>broadcast</code>.
          </p>
        )}
        {partition === 'hash' && (
          <TextField
            label={keyField.label}
            jsonKey="key"
            value={edge.key}
            format={formatKey}
            parse={parseKey}
            onCommit={(value) => update(id, { key: value as string | string[] | undefined }, `${id}.key`)}
            required
            help={`${keyField.description ?? ''} Several, separated by commas, make a composite key.`.trim()}
            problems={keyProblems}
          />
        )}
        <CheckboxField
          label="Feedback edge"
          jsonKey="feedback"
          checked={edge.feedback === true}
          // A feedback edge must be hash-partitioned: ticking the box makes it one in the same step.
          onChange={(checked) =>
            checked ? store.getState().makeFeedback(id) : update(id, { feedback: false })
          }
          help={`${feedbackField.description ?? ''} It is hash-partitioned, so records return to the subtask that owns their key.`}
          problems={feedbackProblems}
        />
      </section>

      <OtherProblems messages={rest.map((p) => p.message)} />
    </FieldPlaceContext.Provider>
  );
}
