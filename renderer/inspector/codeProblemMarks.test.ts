import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { describe, expect, it } from 'vitest';
import { JOB_FORMAT, validateJob } from '../../engine/graph/index.js';
import { codeMarks, codeProblemMarks, offsetOf, setCodeMarks } from './codeProblemMarks';

const code = 'function process(r, ctx) {\n  ctx.emit(r);\n}\n}';

function problemsOf(operatorCode: string) {
  return validateJob({
    format: JOB_FORMAT,
    name: 'marks',
    operators: [
      { id: 'ok', kind: 'map', params: { code: 'function map(r) { return r; }' } },
      { id: 'p1', kind: 'process', params: { code: operatorCode } },
    ],
    edges: [],
  }).problems;
}

describe('codeMarks', () => {
  it("takes the validator's position inside this operator's code, and its message without the operator", () => {
    expect(codeMarks(problemsOf(code), 'p1')).toEqual([
      { line: 4, column: 1, message: "syntax error at line 4, column 1 of its code: Unexpected token '}'" },
    ]);
    expect(codeMarks(problemsOf(code), 'ok')).toEqual([]);
  });

  it('leaves out problems about the code that have no position in it', () => {
    expect(codeMarks(problemsOf('function handle(r, ctx) {}'), 'p1')).toEqual([]);
  });
});

describe('offsetOf', () => {
  it('counts lines as JavaScript does and clamps to the text', () => {
    expect(offsetOf(code, 4, 1)).toBe(code.lastIndexOf('}'));
    expect(offsetOf('a\r\nbc\rd\u2028e', 3, 1)).toBe('a\r\nbc\r'.length);
    expect(offsetOf('a\r\nbc\rd\u2028e', 4, 1)).toBe('a\r\nbc\rd\u2028'.length);
    expect(offsetOf('ab', 9, 9)).toBe(2);
    expect(offsetOf('ab', 1, 99)).toBe(2);
  });
});

describe('the editor extension', () => {
  it('marks the line and the character, and follows edits made before the next validation', () => {
    let state = EditorState.create({ doc: code, extensions: codeProblemMarks });
    state = state.update({ effects: setCodeMarks.of(codeMarks(problemsOf(code), 'p1')) }).state;
    const marked = (s: EditorState) => {
      const found: string[] = [];
      for (const source of s.facet(EditorView.decorations)) {
        const set = typeof source === 'function' ? undefined : source;
        set?.between(0, s.doc.length, (from, to, deco) => {
          found.push(`${deco.spec.class}@${s.doc.lineAt(from).number}:${from}-${to}`);
        });
      }
      return found;
    };
    const brace = code.lastIndexOf('}');
    expect(marked(state)).toEqual([
      `cm-problemLine@4:${brace}-${brace}`,
      `cm-problemMark@4:${brace}-${brace + 1}`,
    ]);
    state = state.update({ changes: { from: 0, insert: '// a note\n' } }).state;
    const moved = brace + '// a note\n'.length;
    expect(marked(state)).toEqual([
      `cm-problemLine@5:${moved}-${moved}`,
      `cm-problemMark@5:${moved}-${moved + 1}`,
    ]);
    state = state.update({ effects: setCodeMarks.of([]) }).state;
    expect(marked(state)).toEqual([]);
  });
});
