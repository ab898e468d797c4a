// The editor of an operator's `code` in the inspector: CodeMirror 6 with JavaScript highlighting,
// the kind's function signature above it (the editor's binding to the store: useCodeEditor.ts).
// The inspector is about 300 px wide, where every line of real code wraps: "Expand" opens the
// same code in a wide editor (ExpandedCode.tsx), as Node-RED's expand button does.
import { EditorView } from '@codemirror/view';
import { useId, useRef, useState } from 'react';
import type { OperatorKind } from '../../engine/graph/index.js';
import { findKind } from '../../engine/graph/index.js';
import type { JsonValue } from '../document/jobDraft';
import { ExpandedCode } from './ExpandedCode';
import { describedBy, FieldRow } from './FieldRow';
import { useCodeEditor } from './useCodeEditor';

export interface CodeFieldProps {
  readonly operatorId: string;
  readonly kind: OperatorKind;
  readonly value: JsonValue | undefined;
  readonly required: boolean;
  readonly help?: string;
  readonly problems?: readonly string[];
}

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
  const id = useId();
  const signatureId = `${id}-signature`;
  const host = useRef<HTMLDivElement>(null);
  const text = typeof value === 'string' ? value : '';
  const signature = findKind(kind)?.userCode?.signature;
  const [expanded, setExpanded] = useState(false);
  useCodeEditor(host, {
    operatorId,
    text,
    wrap: true,
    theme,
    describedBy: signature === undefined ? describedBy(id) : `${signatureId} ${describedBy(id)}`,
  });

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
      <div className="code-tools">
        {signature !== undefined && (
          <div className="code-signature" id={signatureId}>
            <span className="code-signature-caption">Define</span>
            <pre>{signature}</pre>
          </div>
        )}
        <button
          type="button"
          className="code-expand"
          aria-label="Expand the code editor"
          title="Edit the code in a wide editor"
          onClick={() => setExpanded(true)}
        >
          Expand
        </button>
      </div>
      <div className="code-editor" ref={host} />
      {expanded && (
        <ExpandedCode
          operatorId={operatorId}
          text={text}
          signature={signature}
          problems={problems}
          onClose={() => setExpanded(false)}
        />
      )}
    </FieldRow>
  );
}
