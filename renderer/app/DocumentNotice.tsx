// A word to the user about the document, e.g. that a save left out a field's change: shown over
// the workbench until dismissed, the next save or another document, and read out as a status.
import { useDesigner } from '../store/designerContext';
import './documentNotice.css';

export function DocumentNotice() {
  const notice = useDesigner((s) => s.notice);
  const setNotice = useDesigner((s) => s.setNotice);
  if (notice === undefined) return null;
  return (
    <div className="doc-notice" role="status" aria-label="Notice">
      <span className="doc-notice-text">{notice}</span>
      <button type="button" onClick={() => setNotice(undefined)}>
        Dismiss
      </button>
    </div>
  );
}
