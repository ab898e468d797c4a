// What preview sinks received in this run: shown here instead of written to their files.
import { useRun } from './runContext';
import { inlineValue } from './stepFormat';
import { formatCount } from './units';

export function PreviewOutput() {
  const output = useRun((s) => s.output);
  const count = useRun((s) => s.outputCount);
  const preview = useRun((s) => s.previewSinks);
  const hasRun = useRun((s) => s.runId !== undefined);
  return (
    <section className="run-output" aria-label="Preview output">
      <h3>Preview output{count > 0 && <span className="muted"> — {formatCount(count)} records</span>}</h3>
      {count === 0 ? (
        <p className="muted">
          {preview
            ? hasRun
              ? 'No record has reached a sink yet.'
              : 'With “Preview sinks” on, sinks show their records here and write nothing.'
            : 'Turn on “Preview sinks” before a run to see sink records here instead of in their files.'}
        </p>
      ) : (
        <>
          {count > output.length && <p className="muted">The last {output.length} of them:</p>}
          <ul className="run-output-list" aria-label="Preview records">
            {output.map((o) => (
              <li key={`${o.operator}#${o.index}`}>
                <span className="run-output-sink">
                  {o.operator} #{o.index}
                </span>{' '}
                <code>{inlineValue(o.record, 200)}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
