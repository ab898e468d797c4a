// Restricted mode's banner over the canvas, and "Trust this job…": the dialog lists what the job
// will do once trusted (files outside its folder, servers, environment variables, each with its
// operator) and records the user's trust with the host (trust.grant: this file, this text).
import { useState } from 'react';
import { useServices } from '../app/appServices';
import { Modal } from '../dialogs/Modal';
import { useDesigner, useDesignerStore } from '../store/designerContext';
import { showsRestrictedBanner, type WhatItWillDo, whatItWillDo } from './jobTrust';
import './trust.css';

export function TrustBanner() {
  const shown = useDesigner(showsRestrictedBanner);
  const [asking, setAsking] = useState(false);
  if (!shown) return null;
  return (
    <section className="trust-banner" aria-label="Restricted mode">
      <span className="trust-banner-text">
        <strong>Restricted mode.</strong> This job did not come from this designer, or changed since you
        trusted it: you can view, edit and validate it, but not run it or test its connections.
      </span>
      <button type="button" onClick={() => setAsking(true)}>
        Trust this job…
      </button>
      {asking && <TrustDialog close={() => setAsking(false)} />}
    </section>
  );
}

function TrustDialog({ close }: { close: () => void }) {
  const store = useDesignerStore();
  const { host } = useServices();
  const draft = useDesigner((s) => s.draft);
  const filePath = useDesigner((s) => s.filePath);
  if (draft === undefined) return null;
  const will = whatItWillDo(draft, filePath);

  const trust = () => {
    const { filePath: path, savedText, setTrust, setNotice } = store.getState();
    setTrust('trusted');
    close();
    if (path === undefined) return;
    void host
      .request('trust.grant', { path, text: savedText })
      .catch((error: unknown) =>
        setNotice(
          `Trusted for now, but not recorded (${error instanceof Error ? error.message : String(error)}): it will ask again when opened`,
        ),
      );
  };

  return (
    <Modal label="Trust this job" onCancel={close}>
      <h2>Trust this job?</h2>
      <p>
        {filePath === undefined ? 'This job' : <code>{filePath}</code>} is data from outside this designer.
        Trusted, it will:
      </p>
      <WillDo will={will} />
      <p className="trust-note">
        Its code still runs in the sandbox, with no file system, network or environment of its own. Trust only
        a job whose author you trust.
      </p>
      <div className="modal-buttons">
        <button type="button" className="primary" onClick={trust}>
          Trust
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}

function WillDo({ will }: { will: WhatItWillDo }) {
  const reads = will.files.filter((f) => f.access === 'read');
  const writes = will.files.filter((f) => f.access === 'write');
  const section = (title: string, items: readonly { key: string; what: string; operator: string }[]) =>
    items.length === 0 ? null : (
      <section className="trust-section" aria-label={title}>
        <h3>{title}</h3>
        <ul>
          {items.map((item) => (
            <li key={item.key}>
              <code>{item.what}</code> <span className="trust-operator">(operator {item.operator})</span>
            </li>
          ))}
        </ul>
      </section>
    );
  return (
    <div className="trust-list">
      {section(
        'Read files outside its folder',
        reads.map((f, i) => ({ key: `r${i}`, what: f.resolved, operator: f.operator })),
      )}
      {section(
        'Write files outside its folder',
        writes.map((f, i) => ({ key: `w${i}`, what: f.resolved, operator: f.operator })),
      )}
      {section(
        'Connect to',
        will.servers.map((s, i) => ({
          key: `s${i}`,
          what: s.address ?? 'a server its environment variables name',
          operator: s.operator,
        })),
      )}
      {section(
        'Read environment variables',
        will.env.map((e, i) => ({ key: `e${i}`, what: e.variable, operator: e.operator })),
      )}
    </div>
  );
}
