// A CodeMirror 6 editor of an operator's `code`, bound to the store: the store, not CodeMirror,
// owns the text and its history. Every change is written as the user types (folded into one undo
// step per pause), undo and redo in the editor are the document's, and the editor follows the
// store when the text changes elsewhere (the other editor of the same code, an undo), applying
// only the part that changed so that the cursor stays put. Where the validator found a problem
// inside the code (a syntax error, a require), the line is marked. The inspector's editor and the
// expanded one (ExpandedCode.tsx) are two of these over the same code.
import { javascript } from '@codemirror/lang-javascript';
import { Annotation, EditorState, type Extension, Prec } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { type RefObject, useEffect, useLayoutEffect, useRef } from 'react';
import type { Problem } from '../../engine/graph/index.js';
import { findOperator } from '../document/draftEdits';
import { isObject } from '../document/jobDraft';
import { useDesignerStore } from '../store/designerContext';
import { problemsOf } from '../store/selectors';
import { codeMarks, codeProblemMarks, setCodeMarks } from './codeProblemMarks';
import { textChange } from './textDiff';

/** Marks a change that came from the store, so it is not written back to it. */
const fromStore = Annotation.define<boolean>();

export interface CodeEditorOptions {
  readonly operatorId: string;
  /** The code as the store has it when the editor is made. */
  readonly text: string;
  /** Wrap long lines (the narrow inspector), or scroll them (the wide editor). */
  readonly wrap: boolean;
  /** The editor's look: its size and frame. */
  readonly theme: Extension;
  /** Ids of what describes the editor (the signature, the problems), for assistive technology. */
  readonly describedBy: string;
  /** Take the keyboard once made. */
  readonly focus?: boolean;
}

export function useCodeEditor(host: RefObject<HTMLDivElement | null>, options: CodeEditorOptions): void {
  const store = useDesignerStore();
  // The editor is made once per mount; these are what its callbacks and first document read.
  const latest = useRef(options);
  useLayoutEffect(() => {
    latest.current = options;
  });
  const { wrap, theme, describedBy, focus } = options;

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
          ...(wrap ? [EditorView.lineWrapping] : []),
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
          EditorView.contentAttributes.of({ 'aria-label': 'Code', 'aria-describedby': describedBy }),
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
    if (focus === true) editor.focus();
    return () => {
      live = false;
      unsubscribe();
      editor.destroy();
    };
  }, [store, host, wrap, theme, describedBy, focus]);
}
