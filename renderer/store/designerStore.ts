// The designer's one store (zustand), read through selectors. Slices: the document (the only
// part undo/redo tracks, through zundo), the selection, and view requests the canvas carries
// out. Every user action is one `set` of the draft, hence one undo step; drags and typing are
// folded into the step that started them.
import { temporal } from 'zundo';
import { createStore } from 'zustand/vanilla';
import type { OperatorKind, Problem } from '../../engine/graph/index.js';
import type { FileProblem } from '../../engine/protocol/protocol.js';
import { autoLayout } from '../document/autoLayout';
import { copyFragment, type Fragment, parseFragment, pasteFragment } from '../document/clipboard';
import * as edits from '../document/draftEdits';
import {
  draftEdges,
  draftOperators,
  type JobDraft,
  newJobDraft,
  stringField,
  type XY,
} from '../document/jobDraft';
import { parseJobFile, serializeDraft } from '../document/jobFileText';
import type { UnappliedField } from './unappliedFields';

export interface Selection {
  readonly operators: readonly string[];
  readonly edges: readonly string[];
}

export type BottomTab = 'Problems' | 'Debugger' | 'State' | 'Checkpoints' | 'Metrics';

/**
 * Whether the user trusts the job (docs/security.md): one made here or a template is trusted; one
 * opened from disk is 'checking' until the host says whether its text is (renderer/trust/).
 */
export type DocumentTrust = 'trusted' | 'checking' | 'untrusted';

export interface DesignerState {
  /** The job being edited; undefined while the open file is not a JSON object (see rawText). */
  draft: JobDraft | undefined;
  /** An unparseable file's text, kept so that saving gives it back untouched. */
  rawText: string | undefined;
  /** Why rawText could not be read as a job. */
  parseProblems: Problem[];
  filePath: string | undefined;
  /**
   * The template file an unsaved document was opened from: its input files go with the job
   * when it is first saved (see document/templateData.ts).
   */
  templatePath: string | undefined;
  /** The file's text as last opened or saved; the document is dirty when it would save differently. */
  savedText: string;
  /** False on the start screen. */
  open: boolean;
  selection: Selection;
  bottomTab: BottomTab;
  panelsVisible: boolean;
  /** Incremented requests the canvas carries out (it owns the viewport). */
  focusRequest: { id: string; kind: 'operator' | 'edge'; seq: number } | undefined;
  fitRequest: number;
  clipboard: string | undefined;
  /** What the host found wrong with the files the job reads, when it last checked (job.checkFiles). */
  fileProblems: readonly FileProblem[];
  /** Inputs of the inspector holding text that is no value, so the job keeps its old one. */
  unappliedFields: readonly UnappliedField[];
  /** A word to the user about the document, e.g. that a save left out a field's change. */
  notice: string | undefined;
  trust: DocumentTrust;
}

export interface DesignerActions {
  newDocument(name?: string): void;
  /**
   * Opens a file's text; a file that is not a job opens too, with its problems. `asNew`: as an
   * unsaved job, e.g. the template `template`.
   */
  loadText(path: string | undefined, text: string, options?: { asNew?: boolean; template?: string }): void;
  /** The text to write for the current document. */
  textToSave(): string;
  markSaved(path: string, text: string): void;
  closeDocument(): void;

  addOperator(kind: OperatorKind, position: XY): string | undefined;
  updateOperator(id: string, patch: edits.OperatorPatch, coalesceKey?: string): void;
  updateEdge(id: string, patch: edits.EdgePatch, coalesceKey?: string): void;
  connect(connection: edits.Connection): string | undefined;
  makeFeedback(edgeId: string): void;
  setJobField(field: 'name' | 'description', value: string | undefined, coalesceKey?: string): void;
  setSetting(field: string, value: number | string | undefined, coalesceKey?: string): void;
  deleteSelection(): void;

  beginMove(): void;
  moveOperators(moves: Record<string, XY>): void;
  endMove(): void;

  setSelection(selection: Selection): void;
  selectAll(): void;
  copy(): string | undefined;
  cut(): void;
  paste(text?: string): void;
  duplicate(): void;
  autoLayout(): void;

  undo(): void;
  redo(): void;

  setBottomTab(tab: BottomTab): void;
  togglePanels(): void;
  focus(kind: 'operator' | 'edge', id: string): void;
  requestFit(): void;

  setFileProblems(problems: readonly FileProblem[]): void;
  /** An input's text was refused (a field), or taken or given up (undefined); `key` names the input. */
  setUnappliedField(key: string, field: UnappliedField | undefined): void;
  setNotice(notice: string | undefined): void;
  setTrust(trust: DocumentTrust): void;
}

export type Designer = DesignerState & DesignerActions;

const EMPTY_SELECTION: Selection = { operators: [], edges: [] };
/** Keystrokes in one field within this long of each other are one undo step. */
const COALESCE_MS = 1000;
const PASTE_OFFSET: XY = { x: 40, y: 40 };
/** What belongs to the document shown and goes with it (the inputs of the inspector go themselves). */
const ANOTHER_DOCUMENT = { fileProblems: [], notice: undefined } as const;

export function createDesignerStore() {
  let moveStart: JobDraft | undefined;
  let lastCoalesce: { key: string; at: number } | undefined;

  const store = createStore<Designer>()(
    temporal(
      (set, get) => {
        /** Applies an edit as one undo step, or folds it into the previous one for the same field. */
        const edit = (next: JobDraft | undefined, coalesceKey?: string, selection?: Selection) => {
          const { draft } = get();
          if (next === undefined || next === draft) return;
          const now = Date.now();
          const fold =
            coalesceKey !== undefined &&
            lastCoalesce !== undefined &&
            lastCoalesce.key === coalesceKey &&
            now - lastCoalesce.at < COALESCE_MS;
          lastCoalesce = coalesceKey === undefined ? undefined : { key: coalesceKey, at: now };
          const t = store.temporal.getState();
          if (fold) t.pause();
          set(selection === undefined ? { draft: next } : { draft: next, selection });
          if (fold) t.resume();
        };
        const resetHistory = () => {
          lastCoalesce = undefined;
          store.temporal.getState().clear();
        };

        return {
          draft: undefined,
          rawText: undefined,
          parseProblems: [],
          filePath: undefined,
          templatePath: undefined,
          savedText: '',
          open: false,
          selection: EMPTY_SELECTION,
          bottomTab: 'Problems',
          panelsVisible: true,
          focusRequest: undefined,
          fitRequest: 0,
          clipboard: undefined,
          fileProblems: [],
          unappliedFields: [],
          notice: undefined,
          trust: 'trusted',

          newDocument(name) {
            const draft = newJobDraft(name);
            set({
              draft,
              rawText: undefined,
              parseProblems: [],
              filePath: undefined,
              templatePath: undefined,
              savedText: serializeDraft(draft),
              open: true,
              selection: EMPTY_SELECTION,
              ...ANOTHER_DOCUMENT,
              trust: 'trusted',
            });
            resetHistory();
          },
          loadText(path, text, options) {
            const parsed = parseJobFile(text);
            const base = {
              filePath: options?.asNew ? undefined : path,
              templatePath: options?.asNew ? options.template : undefined,
              open: true,
              selection: EMPTY_SELECTION,
              ...ANOTHER_DOCUMENT,
              // A template is the app's own; a file's text is trusted only as the host says.
              trust: options?.asNew || path === undefined ? 'trusted' : 'checking',
            } as const;
            if (parsed.kind === 'text') {
              set({
                ...base,
                draft: undefined,
                rawText: text,
                parseProblems: parsed.problems,
                savedText: text,
              });
            } else {
              // A template opened as new is unsaved until saved somewhere of the user's choosing.
              set({
                ...base,
                draft: parsed.draft,
                rawText: undefined,
                parseProblems: [],
                savedText: options?.asNew ? '' : text,
              });
            }
            resetHistory();
            set({ fitRequest: get().fitRequest + 1 });
          },
          textToSave() {
            const { draft, rawText } = get();
            return draft === undefined ? (rawText ?? '') : serializeDraft(draft);
          },
          markSaved(path, text) {
            set({ filePath: path, templatePath: undefined, savedText: text });
          },
          closeDocument() {
            set({
              open: false,
              draft: undefined,
              rawText: undefined,
              filePath: undefined,
              templatePath: undefined,
              selection: EMPTY_SELECTION,
              ...ANOTHER_DOCUMENT,
            });
            resetHistory();
          },

          addOperator(kind, position) {
            const { draft } = get();
            if (draft === undefined) return undefined;
            const added = edits.addOperator(draft, kind, position);
            edit(added.draft, undefined, { operators: [added.id], edges: [] });
            return added.id;
          },
          updateOperator(id, patch, coalesceKey) {
            const { draft, selection } = get();
            if (draft === undefined) return;
            const renamed = patch.id !== undefined && patch.id !== id;
            edit(
              edits.updateOperator(draft, id, patch),
              coalesceKey,
              renamed
                ? { ...selection, operators: selection.operators.map((s) => (s === id ? patch.id! : s)) }
                : undefined,
            );
          },
          updateEdge(id, patch, coalesceKey) {
            const { draft } = get();
            if (draft !== undefined) edit(edits.updateEdge(draft, id, patch), coalesceKey);
          },
          connect(connection) {
            const { draft } = get();
            if (draft === undefined) return undefined;
            const made = edits.connect(draft, connection);
            edit(made.draft, undefined, { operators: [], edges: [made.id] });
            return made.id;
          },
          makeFeedback(edgeId) {
            const { draft } = get();
            if (draft !== undefined) edit(edits.makeFeedback(draft, edgeId));
          },
          setJobField(field, value, coalesceKey) {
            const { draft } = get();
            if (draft !== undefined) edit(edits.setJobField(draft, field, value), coalesceKey);
          },
          setSetting(field, value, coalesceKey) {
            const { draft } = get();
            if (draft !== undefined) edit(edits.setSetting(draft, field, value), coalesceKey);
          },
          deleteSelection() {
            const { draft, selection } = get();
            if (draft === undefined) return;
            edit(
              edits.removeElements(draft, new Set(selection.operators), new Set(selection.edges)),
              undefined,
              EMPTY_SELECTION,
            );
          },

          beginMove() {
            moveStart = get().draft;
            store.temporal.getState().pause();
          },
          moveOperators(moves) {
            const { draft } = get();
            if (draft === undefined) return;
            const next = edits.moveOperators(draft, moves);
            if (moveStart === undefined) edit(next);
            else set({ draft: next });
          },
          endMove() {
            const start = moveStart;
            moveStart = undefined;
            const t = store.temporal.getState();
            const end = get().draft;
            if (start === undefined || end === start) {
              t.resume();
              return;
            }
            // The drag's intermediate positions were not recorded; record the whole drag as one step.
            set({ draft: start });
            t.resume();
            set({ draft: end });
          },

          setSelection(selection) {
            set({ selection });
          },
          selectAll() {
            const { draft } = get();
            if (draft === undefined) return;
            set({
              selection: {
                operators: draftOperators(draft).flatMap((op) => stringField(op, 'id') ?? []),
                edges: draftEdges(draft).flatMap((e) => stringField(e, 'id') ?? []),
              },
            });
          },
          copy() {
            const { draft, selection } = get();
            if (draft === undefined || selection.operators.length === 0) return undefined;
            const text = JSON.stringify(copyFragment(draft, new Set(selection.operators)));
            set({ clipboard: text });
            return text;
          },
          cut() {
            if (get().copy() !== undefined) get().deleteSelection();
          },
          paste(text) {
            const { draft } = get();
            const source = text ?? get().clipboard;
            if (draft === undefined || source === undefined) return;
            const fragment: Fragment | undefined = parseFragment(source);
            if (fragment === undefined) return;
            const pasted = pasteFragment(draft, fragment, PASTE_OFFSET);
            edit(pasted.draft, undefined, { operators: pasted.operatorIds, edges: pasted.edgeIds });
          },
          duplicate() {
            const text = get().copy();
            if (text !== undefined) get().paste(text);
          },
          autoLayout() {
            const { draft } = get();
            if (draft === undefined) return;
            edit(edits.moveOperators(draft, autoLayout(draft)));
            set({ fitRequest: get().fitRequest + 1 });
          },

          undo() {
            lastCoalesce = undefined;
            store.temporal.getState().undo();
          },
          redo() {
            lastCoalesce = undefined;
            store.temporal.getState().redo();
          },

          setBottomTab(tab) {
            set({ bottomTab: tab, panelsVisible: true });
          },
          togglePanels() {
            set({ panelsVisible: !get().panelsVisible });
          },
          focus(kind, id) {
            const seq = (get().focusRequest?.seq ?? 0) + 1;
            set({
              focusRequest: { id, kind, seq },
              selection:
                kind === 'operator' ? { operators: [id], edges: [] } : { operators: [], edges: [id] },
            });
          },
          requestFit() {
            set({ fitRequest: get().fitRequest + 1 });
          },

          setFileProblems(problems) {
            set({ fileProblems: problems });
          },
          setUnappliedField(key, field) {
            const others = get().unappliedFields.filter((f) => f.key !== key);
            if (field === undefined && others.length === get().unappliedFields.length) return;
            set({ unappliedFields: field === undefined ? others : [...others, { ...field, key }] });
          },
          setNotice(notice) {
            set({ notice });
          },
          setTrust(trust) {
            set({ trust });
          },
        };
      },
      {
        partialize: (state) => ({ draft: state.draft }),
        equality: (a, b) => a.draft === b.draft,
        limit: 200,
      },
    ),
  );
  return store;
}

export type DesignerStore = ReturnType<typeof createDesignerStore>;
