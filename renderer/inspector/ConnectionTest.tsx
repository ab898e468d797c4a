// The inspector's "Test connection" for a connector operator: one host request (connection.test)
// with the params as the form has them; the host resolves `${env:NAME}` and asks the server. The
// answer shows under the button, green or red, in one line.
import { useState } from 'react';
import { useServices } from '../app/appServices';
import type { JsonObject } from '../document/jobDraft';
import { useDesigner } from '../store/designerContext';
import { isRestricted } from '../trust/jobTrust';
import {
  answered,
  askedKey,
  type ConnectionTestState,
  connectionTestNote,
  failedRequest,
} from './connectionTestState';

export interface ConnectionTestProps {
  readonly operatorId: string;
  readonly kind: string;
  readonly params: JsonObject;
}

export function ConnectionTest({ operatorId, kind, params }: ConnectionTestProps) {
  const { host } = useServices();
  const [state, setState] = useState<ConnectionTestState>({ phase: 'idle' });
  const now = askedKey(operatorId, kind, params);
  const note = connectionTestNote(state, now);
  // Restricted mode: a job the user has not trusted connects nowhere, and reads no variable.
  const restricted = useDesigner(isRestricted);
  const trusted = useDesigner((s) => s.trust === 'trusted');

  const test = async () => {
    setState({ phase: 'testing', asked: now });
    const result = await host
      .request('connection.test', { operatorId, kind, params, trusted })
      .catch((error: unknown) => failedRequest(error));
    setState((current) => answered(current, now, result));
  };

  return (
    <section className="inspector-section connection-test" aria-label="Connection">
      <button
        type="button"
        className="connection-test-button"
        disabled={note?.tone === 'testing' || restricted}
        title={restricted ? 'Restricted mode: trust this job to test its connections' : undefined}
        onClick={() => void test()}
      >
        Test connection
      </button>
      <p
        role="status"
        aria-label="Connection test"
        className={`connection-test-note tone-${note?.tone ?? 'idle'}`}
      >
        {note?.text}
      </p>
    </section>
  );
}
