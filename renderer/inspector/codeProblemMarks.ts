// Marks, in the code editor, where the validator found a problem inside the code: the line gets
// a tinted background (its title is the message) and the character at the reported column a
// wavy underline. The marks come from the same validator the Problems panel lists, so the two
// cannot disagree; they follow edits until the next validation replaces them.
import { type Extension, type Range, StateEffect, StateField, type Text } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView } from '@codemirror/view';
import type { Problem } from '../../engine/graph/index.js';
import { inlineMessage } from './problemPaths';

export interface CodeMark {
  /** 1-based line and column inside the code, as the validator counts them. */
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** The problems about positions inside this operator's code. */
export function codeMarks(problems: readonly Problem[], operatorId: string): CodeMark[] {
  return problems
    .filter((p) => p.codeLine !== undefined && p.ids[0] === operatorId && p.path.endsWith('.params.code'))
    .map((p) => ({ line: p.codeLine!, column: p.codeColumn ?? 1, message: inlineMessage(p) }));
}

/** Replaces the marks shown; dispatch it as an effect. */
export const setCodeMarks = StateEffect.define<readonly CodeMark[]>();

// JavaScript ends a line at each of these, and the validator counts lines as JavaScript does.
const LINE_END = /\r\n?|[\n\u2028\u2029]/g;

/** The offset in `text` of a 1-based line and column, clamped to the text. */
export function offsetOf(text: string, line: number, column: number): number {
  let start = 0;
  LINE_END.lastIndex = 0;
  for (let current = 1; current < line; current++) {
    const end = LINE_END.exec(text);
    if (end === null) return text.length;
    start = end.index + end[0].length;
  }
  return Math.min(start + Math.max(column - 1, 0), text.length);
}

const lineMark = (message: string) =>
  Decoration.line({ class: 'cm-problemLine', attributes: { title: message } });
const characterMark = Decoration.mark({ class: 'cm-problemMark' });

function decorate(doc: Text, marks: readonly CodeMark[]): DecorationSet {
  if (marks.length === 0) return Decoration.none;
  const text = doc.toString();
  const ranges: Range<Decoration>[] = [];
  const marked = new Set<number>();
  for (const mark of marks) {
    const at = offsetOf(text, mark.line, mark.column);
    const line = doc.lineAt(at);
    if (!marked.has(line.from)) {
      marked.add(line.from);
      ranges.push(lineMark(mark.message).range(line.from));
    }
    // At the end of a line (an unclosed bracket at the end of the code) there is no character.
    if (at < line.to) ranges.push(characterMark.range(at, at + 1));
  }
  return Decoration.set(ranges, true);
}

const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(decorations, transaction) {
    let next = decorations.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (effect.is(setCodeMarks)) next = decorate(transaction.state.doc, effect.value);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

const marksTheme = EditorView.baseTheme({
  '.cm-problemLine': { backgroundColor: 'var(--error-weak)' },
  '.cm-problemMark': {
    textDecoration: 'underline wavy var(--error)',
    textDecorationSkipInk: 'none',
    textUnderlineOffset: '3px',
  },
});

/** The editor extension that shows the marks set with `setCodeMarks`. */
export const codeProblemMarks: Extension = [marksField, marksTheme];
