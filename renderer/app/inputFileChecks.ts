// The host's check of the files the job reads (job.checkFiles), asked whenever a job is opened
// or saved (its file or its saved text changes) and by a run as it starts; the answer goes to
// the store and so to the Problems panel. A job without a file has no folder to look in.
import type { HostClient } from '../host/hostClient';
import type { DesignerState, DesignerStore } from '../store/designerStore';

type Checked = Pick<DesignerState, 'open' | 'filePath' | 'savedText'>;

export function createInputFileChecks(store: DesignerStore, host: Pick<HostClient, 'request'>) {
  let asked = 0;

  const check = async (): Promise<void> => {
    const state = store.getState();
    const ask = ++asked;
    const path = state.filePath;
    if (!state.open || path === undefined || state.draft === undefined) {
      if (state.fileProblems.length > 0) state.setFileProblems([]);
      return;
    }
    try {
      const { problems } = await host.request('job.checkFiles', { path, text: state.textToSave() });
      // Only the latest answer, and only for the file it was asked about.
      if (ask === asked && store.getState().filePath === path) store.getState().setFileProblems(problems);
    } catch {
      // A check that could not be made adds nothing: a run would still say what is wrong.
    }
  };

  let last: Checked = store.getState();
  const off = store.subscribe((state) => {
    if (state.open === last.open && state.filePath === last.filePath && state.savedText === last.savedText)
      return;
    last = state;
    void check();
  });
  // A job given on the command line was opened before the app, and so before this, started.
  void check();

  return { check, dispose: off };
}

export type InputFileChecks = ReturnType<typeof createInputFileChecks>;
