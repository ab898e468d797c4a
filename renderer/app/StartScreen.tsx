// What the app shows with no document: start something new, open a file, a recent one, or a
// template (the examples in assets/examples), as VS Code's welcome page does.
import { useEffect, useState } from 'react';
import type { TemplateInfo } from '../../engine/protocol/protocol.js';
import { useServices } from './appServices';
import type { FileCommands } from './fileCommands';

export function StartScreen({ files }: { files: FileCommands }) {
  const { host } = useServices();
  const [templates, setTemplates] = useState<TemplateInfo[] | undefined>(undefined);
  const [recent, setRecent] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    host.request('templates.list', {}).then(setTemplates, (e: Error) => setError(e.message));
    host.request('recent.list', {}).then(setRecent, (e: Error) => setError(e.message));
  }, [host]);

  return (
    <main className="start" aria-label="Start">
      <h1>Pipewright</h1>
      <p className="start-lede">
        Draw a stream-processing job, check it as you go, and save it as a job file that runs headless.
      </p>
      <div className="start-columns">
        <section aria-labelledby="start-begin">
          <h2 id="start-begin">Start</h2>
          <button type="button" className="start-action" onClick={() => void files.newDocument()}>
            New job
          </button>
          <button type="button" className="start-action" onClick={() => void files.open()}>
            Open job file…
          </button>
          <h2 id="start-recent">Recent</h2>
          {recent.length === 0 ? (
            <p className="muted">No recent files.</p>
          ) : (
            <ul aria-labelledby="start-recent" className="start-list">
              {recent.map((path) => (
                <li key={path}>
                  <button
                    type="button"
                    className="link"
                    title={path}
                    onClick={() => void files.openRecent(path)}
                  >
                    {path.split(/[\\/]/).pop()}
                    <span className="muted"> {path}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="start-templates">
          <h2 id="start-templates">Templates</h2>
          {templates === undefined && error === undefined && <p className="muted">Loading…</p>}
          <ul className="start-templates" aria-labelledby="start-templates">
            {(templates ?? []).map((t) => (
              <li key={t.name}>
                <button
                  type="button"
                  className="template"
                  aria-label={`Open template ${t.title}`}
                  onClick={() => void files.openTemplate(t.path)}
                >
                  <strong>{t.title}</strong>
                  <span>{t.description}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      </div>
      {error !== undefined && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </main>
  );
}
