// An operator's code in a dialog most of the window wide and tall, as Node-RED's expanded editor:
// the same binding to the store as the inspector's editor (useCodeEditor.ts), so both show what
// is typed in either, with undo and redo the document's; long lines scroll rather than wrap; and
// the validator's problems with this code listed under it as they come and go, as the inspector
// lists them under its field, the lines marked in the editor. Escape or Done closes it.
import { EditorView } from '@codemirror/view';
import { useId, useRef } from 'react';
import { Modal } from '../dialogs/Modal';
import { useCodeEditor } from './useCodeEditor';

const theme = EditorView.theme({
  '&': {
    height: '100%',
    fontSize: '13px',
    backgroundColor: 'var(--panel)',
    border: '1px solid var(--border)',
    borderRadius: '4px',
  },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', overflow: 'auto' },
  '.cm-gutters': {
    backgroundColor: 'var(--bg)',
    color: 'var(--muted)',
    borderRight: '1px solid var(--border)',
  },
});

export function ExpandedCode({
  operatorId,
  text,
  signature,
  problems,
  onClose,
}: {
  operatorId: string;
  text: string;
  signature: string | undefined;
  problems: readonly string[];
  onClose: () => void;
}) {
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  useCodeEditor(host, {
    operatorId,
    text,
    wrap: false,
    theme,
    describedBy: `${id}-signature ${id}-problems`,
    focus: true,
  });
  return (
    <Modal label={`Code of operator ${operatorId}`} onCancel={onClose} className="modal modal-code">
      <div className="expanded-code">
        <h2>
          Code of operator <code>{operatorId}</code>
        </h2>
        {signature !== undefined && (
          <div className="code-signature" id={`${id}-signature`}>
            <span className="code-signature-caption">Define</span>
            <pre>{signature}</pre>
          </div>
        )}
        <div className="expanded-code-editor" ref={host} />
        <div id={`${id}-problems`} aria-live="polite">
          {problems.length === 0 ? (
            <p className="expanded-code-fine muted">No problems in this code.</p>
          ) : (
            <ul className="expanded-code-problems" aria-label="Problems in this code">
              {problems.map((message) => (
                <li key={message} className="field-problem">
                  {message}
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="modal-buttons">
          <button type="button" className="primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    </Modal>
  );
}
