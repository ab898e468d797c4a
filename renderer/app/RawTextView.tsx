// A file that is not a JSON object cannot be drawn; it is shown as it is, read-only, so the user
// sees the line the Problems panel points at, and saving gives the text back unchanged.
import { useDesigner } from '../store/designerContext';

export function RawTextView() {
  const text = useDesigner((s) => s.rawText ?? '');
  const problem = useDesigner((s) => s.parseProblems[0]);
  const lines = text.split('\n');
  return (
    <section className="raw-text" aria-label="File text">
      <p className="raw-text-note">
        This file cannot be drawn: {problem?.message ?? 'it is not a job file'}. Fix it in a text editor and
        open it again; saving here writes it back unchanged.
      </p>
      <ol className="raw-text-lines">
        {lines.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines are identified by their number
          <li key={i} className={problem?.line === i + 1 ? 'fault' : undefined}>
            <code>{line || ' '}</code>
          </li>
        ))}
      </ol>
    </section>
  );
}
