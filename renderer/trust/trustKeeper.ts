// Keeps the open job's trust in step with the host's record of it (trust.check, trust.grant):
// a job opened from disk is asked about as soon as it is loaded (its text as on disk), and a job
// the user trusts is recorded whenever it is saved, so that it opens trusted next time and the
// CLI runs it too. A save of a job in restricted mode records nothing.
import type { HostClient } from '../host/hostClient';
import type { DesignerStore } from '../store/designerStore';

/** Starts keeping; returns the function that stops it. */
export function keepTrust(store: DesignerStore, host: Pick<HostClient, 'request'>): () => void {
  let asked: { path: string; text: string } | undefined;
  const ask = () => {
    const { trust, filePath, savedText } = store.getState();
    if (trust !== 'checking' || filePath === undefined) return;
    if (asked?.path === filePath && asked.text === savedText) return;
    const question = { path: filePath, text: savedText };
    asked = question;
    void host.request('trust.check', question).then(
      ({ trusted }) => answer(question, trusted ? 'trusted' : 'untrusted'),
      // Not knowing is not trusting.
      () => answer(question, 'untrusted'),
    );
  };
  const answer = (question: { path: string; text: string }, trust: 'trusted' | 'untrusted') => {
    const state = store.getState();
    // Another document (or another text of this one) is open by now: its own question counts.
    if (state.trust !== 'checking' || state.filePath !== question.path || state.savedText !== question.text)
      return;
    asked = undefined;
    state.setTrust(trust);
  };
  const off = store.subscribe((state, previous) => {
    if (state.trust === 'checking') {
      ask();
      return;
    }
    const saved =
      state.filePath !== undefined &&
      (state.filePath !== previous.filePath || state.savedText !== previous.savedText);
    if (saved && state.trust === 'trusted' && previous.trust === 'trusted') {
      void host.request('trust.grant', { path: state.filePath!, text: state.savedText }).catch(() => {
        state.setNotice(
          `Saved, but could not record that you trust ${state.filePath}: it will ask again when opened`,
        );
      });
    }
  });
  ask();
  return off;
}
