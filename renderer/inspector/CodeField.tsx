// The editor of an operator's `code`: CodeMirror 6 with JavaScript highlighting, the kind's
// function signature above it. The store, not CodeMirror, owns the text and its history: every
// change is written as the user types (folded into one undo step per pause), undo and redo in
// the editor are the document's, and the editor follows the store when the text changes
// elsewhere, applying only the part that changed so that the cursor stays put. Where the
// validator found a problem inside the code (a syntax error, a require), the line is marked.
import { javascript } from '@codemirror/lang-javascript';
import { Annotation, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useId, useLayoutEffect, useRef } from 'react';
import type { OperatorKind, Problem } from '../../engine/graph/index.js';
import { findKind } from '../../engine/graph/index.js';
import { findOperator } from '../document/draftEdits';
import { isObject, type JsonValue } from '../document/jobDraft';
import { useDesignerStore } from '../store/designerContext';
import { problemsOf } from '../store/selectors';
import { codeMarks, codeProblemMarks, setCodeMarks } from './codeProblemMarks';
import { describedBy, FieldRow } from './FieldRow';
import { textChange } from './textDiff';

export interface CodeFieldProps {
  readonly operatorId: string;
  readonly kind: OperatorKind;
  readonly value: JsonValue | undefined;
  readonly required: boolean;
  readonly help?: string;
  readonly problems?: readonly string[];
}

/** Marks a change that came from the store, so it is not written back to it. */
const fromStore = Annotation.define<boolean>();

const theme = EditorView.theme({
  '&': {
    fontSize: '12px',
    backgroundColor: 'var(--panel)',
    border: '1px solid var(--border)',
    borderRadius: '4px',
  },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', minHeight: '140px', maxHeight: '420px', overflow: 'auto' },
  '.cm-gutters': {
    backgroundColor: 'var(--bg)',
    color: 'var(--muted)',
    borderRight: '1px solid var(--border)',
  },
});

export function CodeField({ operatorId, kind, value, required, help, problems = [] }: CodeFieldProps) {
  const store = useDesignerStore();
  const id = useId();
  const signatureId = `${id}-signature`;
  const host = useRef<HTMLDivElement>(null);
  const text = typeof value === 'string' ? value : '';
  const signature = findKind(kind)?.userCode?.signature;

  // The editor is made once per mount; these are what its callbacks and first document read.
  const latest = useRef({ operatorId, text });
  useLayoutEffect(() => {
    latest.current = { operatorId, text };
  });

  useEffect(() => {
    const parent = host.current;
    if (parent === null) return;
    const history = (run: () => void) => () => {
      run();
      return true;
    };
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        doc: latest.current.text,
        extensions: [
          basicSetup,
          javascript(),
          EditorView.lineWrapping,
          theme,
          codeProblemMarks,
          // Ahead of basicSetup's own history, which would undo behind the document's back.
          Prec.highest(
            keymap.of([
              { key: 'Mod-z', run: history(() => store.getState().undo()) },
              { key: 'Mod-Shift-z', run: history(() => store.getState().redo()) },
              { key: 'Mod-y', run: history(() => store.getState().redo()) },
            ]),
          ),
          Prec.highest(
            EditorView.domEventHandlers({
              beforeinput(event) {
                if (event.inputType !== 'historyUndo' && event.inputType !== 'historyRedo') return false;
                event.preventDefault();
                if (event.inputType === 'historyUndo') store.getState().undo();
                else store.getState().redo();
                return true;
              },
            }),
          ),
          EditorView.contentAttributes.of({
            'aria-label': 'Code',
            'aria-describedby':
              signature === undefined ? describedBy(id) : `${signatureId} ${describedBy(id)}`,
          }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged || update.transactions.some((t) => t.annotation(fromStore))) return;
            const { operatorId: current } = latest.current;
            store
              .getState()
              .updateOperator(
                current,
                { params: { code: update.state.doc.toString() } },
                `${current}.params.code`,
              );
          }),
        ],
      }),
    });
    // The validator's problems are of the store's text: they are shown once the editor holds
    // that same text, after the update that wrote it (an editor may not be dispatched to while it
    // updates, and the store is written from inside the editor's update listener).
    let shownProblems: readonly Problem[] | undefined;
    let markPending = false;
    let live = true;
    const showMarks = () => {
      markPending = false;
      const state = store.getState();
      if (!live || state.draft === undefined) return;
      const problems = problemsOf(state);
      if (problems === shownProblems) return;
      const { operatorId: current } = latest.current;
      const op = findOperator(state.draft, current);
      const code = op !== undefined && isObject(op.params) ? op.params.code : undefined;
      if (code !== editor.state.doc.toString()) return;
      shownProblems = problems;
      editor.dispatch({ effects: setCodeMarks.of(codeMarks(problems, current)) });
    };
    const scheduleMarks = () => {
      if (markPending) return;
      markPending = true;
      queueMicrotask(showMarks);
    };
    showMarks();
    // Follow the store directly rather than through React's render: a render that lags behind
    // fast typing would otherwise "restore" a text the user has already typed past.
    const unsubscribe = store.subscribe((state, previous) => {
      if (state.draft === previous.draft || state.draft === undefined) return;
      const op = findOperator(state.draft, latest.current.operatorId);
      const code = op !== undefined && isObject(op.params) ? op.params.code : undefined;
      scheduleMarks();
      if (typeof code !== 'string') return;
      const change = textChange(editor.state.doc.toString(), code);
      if (change !== undefined) editor.dispatch({ changes: change, annotations: fromStore.of(true) });
    });
    return () => {
      live = false;
      unsubscribe();
      editor.destroy();
    };
  }, [store, id, signatureId, signature]);

  return (
    <FieldRow
      id={id}
      label="Code"
      labelFor={false}
      required={required}
      jsonKey="code"
      help={help}
      problems={problems}
    >
      {signature !== undefined && (
        <div className="code-signature" id={signatureId}>
          <span className="code-signature-caption">Define</span>
          <pre>{signature}</pre>
        </div>
      )}
      <div className="code-editor" ref={host} />
    </FieldRow>
  );
}
