// The host's check of the files the job reads (job.checkFiles), asked when a job is opened or
// saved and by a run as it starts; the answer goes to the store and so to the Problems panel.
// Asked by those commands rather than on a change of the store: saving a job unchanged, or
// opening the same file again, changes nothing in the store, yet its files may have come or gone.
// A job without a file has no folder to look in. Only the names of the files are sent, never the
// job's text (a job file of many megabytes would go back over the protocol with every check).
import { inputFilesOf } from '../../engine/graph/index.js';
import type { HostClient } from '../host/hostClient';
import type { DesignerStore } from '../store/designerStore';

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
      const { problems } = await host.request('job.checkFiles', { path, inputs: inputFilesOf(state.draft) });
      // Only the latest answer, and only for the file it was asked about.
      if (ask === asked && store.getState().filePath === path) store.getState().setFileProblems(problems);
    } catch {
      // A check that could not be made adds nothing: a run would still say what is wrong.
    }
  };

  return { check };
}

export type InputFileChecks = ReturnType<typeof createInputFileChecks>;
