// The browser form's file dialog: a path field plus a listing of the host's directories, since a
// page cannot open the native dialogs of the machine the host runs on.
import { useEffect, useState } from 'react';
import type { DirEntry } from '../../engine/protocol/protocol.js';
import { useServices } from '../app/appServices';
import type { DialogRequest } from './dialogService';

type FileRequest = Extract<DialogRequest, { kind: 'file' }>;

export function FileDialog({ request }: { request: FileRequest }) {
  const { host, info } = useServices();
  const [dir, setDir] = useState(request.startDir);
  const [listing, setListing] = useState<{ parent?: string; entries: DirEntry[] } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [path, setPath] = useState(
    request.defaultName === undefined ? '' : `${request.startDir}${info.sep}${request.defaultName}`,
  );

  useEffect(() => {
    let live = true;
    host.request('file.list', { dir }).then(
      (l) => {
        if (!live) return;
        setListing(l);
        setError(undefined);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [host, dir]);

  const choose = (entry: DirEntry) => {
    if (entry.kind === 'dir') setDir(entry.path);
    else setPath(entry.path);
  };
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (path.trim() !== '') request.resolve(path.trim());
  };

  return (
    <form className="file-dialog" onSubmit={submit}>
      <h2>{request.title}</h2>
      <p className="muted" aria-live="polite">
        {dir}
      </p>
      <ul className="file-list" aria-label="Files">
        {listing?.parent !== undefined && (
          <li>
            <button type="button" onClick={() => setDir(listing.parent!)}>
              ..
            </button>
          </li>
        )}
        {listing?.entries.map((entry) => (
          <li key={entry.path}>
            <button
              type="button"
              className={entry.kind}
              onClick={() => choose(entry)}
              onDoubleClick={() => entry.kind === 'file' && request.resolve(entry.path)}
            >
              {entry.name}
              {entry.kind === 'dir' ? '/' : ''}
            </button>
          </li>
        ))}
      </ul>
      {error !== undefined && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <label className="file-path">
        File path
        <input value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} />
      </label>
      {request.note !== undefined && <p className="file-note">{request.note}</p>}
      <div className="modal-buttons">
        <button type="submit" className="primary" disabled={path.trim() === ''}>
          {request.mode === 'open' ? 'Open' : 'Save'}
        </button>
        <button type="button" onClick={() => request.resolve(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
