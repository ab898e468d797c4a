// The inspector when no single operator or edge is selected: the job itself, its name and
// description and its settings, generated from the settings schema with each default shown
// where the setting is absent.
import { useId } from 'react';
import { formatJsonPath, jobSchema, type Problem, settingsSchema } from '../../engine/graph/index.js';
import { draftEdges, draftOperators, isObject, type JobDraft, type JsonObject } from '../document/jobDraft';
import { useDesigner, useDesignerStore } from '../store/designerContext';
import { problemsOf } from '../store/selectors';
import { type FieldPlace, FieldPlaceContext } from './fieldOwner';
import { OtherProblems } from './ProblemNotes';
import { inlineMessage, isUnder, problemsAt } from './problemPaths';
import { SchemaField } from './SchemaField';
import { describeField, describeFields } from './schemaFields';
import { TextField } from './TextField';

const nameField = describeField('name', jobSchema.shape.name);
const descriptionField = describeField('description', jobSchema.shape.description);
const settingFields = describeFields(settingsSchema);
const JOB_PLACE: FieldPlace = { owner: { kind: 'job' }, path: [] };

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

// Problems of the file as a whole: not about an operator, an edge or a field the form shows.
function jobProblems(problems: readonly Problem[], shown: ReadonlySet<Problem>): Problem[] {
  const elements = [formatJsonPath(['operators']), formatJsonPath(['edges'])];
  return problems.filter(
    (p) => !shown.has(p) && p.ids.length === 0 && !elements.some((e) => isUnder(p.path, e)),
  );
}

export function JobForm({ draft, selected }: { draft: JobDraft; selected: number }) {
  const store = useDesignerStore();
  const problems = useDesigner(problemsOf);
  const settingsHeading = useId();
  const settings: JsonObject = isObject(draft.settings) ? draft.settings : {};

  const shown = new Set<Problem>();
  const inline = (...path: string[]): string[] => {
    const found = problemsAt(problems, path);
    for (const p of found) shown.add(p);
    return found.map(inlineMessage);
  };
  const nameProblems = inline('name');
  const descriptionProblems = inline('description');
  const settingProblems = new Map(settingFields.map((field) => [field.name, inline('settings', field.name)]));
  const rest = jobProblems(problems, shown);

  return (
    <FieldPlaceContext.Provider value={JOB_PLACE}>
      <header className="inspector-header">
        <h2>
          <span className="inspector-what">Job</span>
        </h2>
        <span className="inspector-summary">
          {count(draftOperators(draft).length, 'operator')}, {count(draftEdges(draft).length, 'edge')}
        </span>
      </header>
      {selected > 1 && (
        <p className="inspector-note">
          {selected} items are selected. Select one operator or edge to edit it.
        </p>
      )}

      <section className="inspector-section" aria-label="Job">
        <TextField
          label={nameField.label}
          jsonKey="name"
          required={nameField.required}
          value={draft.name}
          format={(v) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v))}
          // An emptied name stays "" so that the validator says it must not be empty.
          parse={(text) => ({ ok: true, value: text })}
          onCommit={(value) => store.getState().setJobField('name', String(value), 'job.name')}
          problems={nameProblems}
        />
        <TextField
          label={descriptionField.label}
          jsonKey="description"
          required={descriptionField.required}
          multiline
          value={draft.description}
          format={(v) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v))}
          parse={(text) => ({ ok: true, value: text === '' ? undefined : text })}
          onCommit={(value) =>
            store
              .getState()
              .setJobField('description', typeof value === 'string' ? value : undefined, 'job.description')
          }
          problems={descriptionProblems}
        />
      </section>

      <section className="inspector-section" aria-labelledby={settingsHeading}>
        <h3 id={settingsHeading}>Settings</h3>
        {settingFields.map((field) =>
          field.type === 'code' ? null : (
            <SchemaField
              key={field.name}
              field={field}
              at={['settings', field.name]}
              value={settings[field.name]}
              problems={settingProblems.get(field.name)}
              onChange={(value) =>
                store
                  .getState()
                  .setSetting(
                    field.name,
                    typeof value === 'number' || typeof value === 'string' ? value : undefined,
                    `settings.${field.name}`,
                  )
              }
            />
          ),
        )}
      </section>

      <OtherProblems messages={rest.map((p) => p.message)} />
    </FieldPlaceContext.Provider>
  );
}
