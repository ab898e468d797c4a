// New, open, save, save as, import and export: the same steps in Electron (native dialogs) and
// in the browser form (the app's own file dialog over the host's file listing).
import type { DesktopApi, FileFilter } from '../../engine/host/desktopApi.js';
import type { HostInfo } from '../../engine/protocol/protocol.js';
import type { DialogService } from '../dialogs/dialogService';
import { copyFragment } from '../document/clipboard';
import { operatorIds } from '../document/jobDraft';
import { parseJobFile, serializeDraft } from '../document/jobFileText';
import { copiedNotice, copyNote, templateDataFiles } from '../document/templateData';
import type { HostClient } from '../host/hostClient';
import type { DesignerStore } from '../store/designerStore';
import { isDirty, problemsOf } from '../store/selectors';
import { savedWithoutNotice } from '../store/unappliedFields';

const JOB_FILTERS: readonly FileFilter[] = [
  { name: 'Job files', extensions: ['job.json', 'json'] },
  { name: 'All files', extensions: ['*'] },
];

function dirOf(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut <= 0 ? path.slice(0, cut + 1) || '/' : path.slice(0, cut);
}

function withJobSuffix(path: string): string {
  return /\.json$/i.test(path) ? path : `${path}.job.json`;
}

export interface FileCommandDeps {
  readonly store: DesignerStore;
  readonly host: HostClient;
  readonly desktop: DesktopApi | undefined;
  readonly info: HostInfo;
  readonly dialogs: DialogService;
  /** Reports a failure to the user (a host error names the file). */
  readonly report: (title: string, error: unknown) => void;
  /** Asks the host whether the job's input files are there (see inputFileChecks.ts). */
  readonly checkInputFiles?: () => void;
}

export function createFileCommands(deps: FileCommandDeps) {
  const { store, host, desktop, info, dialogs } = deps;

  /** The job's own folder, or for a job without a file the folder the designer was started from. */
  const startDir = () => {
    const path = store.getState().filePath;
    return path === undefined ? info.startDir : dirOf(path);
  };
  const suggestedName = () => {
    const name = store.getState().draft?.name;
    return `${typeof name === 'string' && name !== '' ? name.replace(/[^\w.-]+/g, '-') : 'untitled'}.job.json`;
  };
  const pickOpen = async (title: string) =>
    desktop !== undefined
      ? desktop.showOpenDialog({ title, defaultPath: startDir(), filters: JOB_FILTERS })
      : dialogs.pickFile({ mode: 'open', title, startDir: startDir() });
  /** `note`: what saving there will do besides, said in the browser form's dialog. */
  const pickSave = async (title: string, note?: string) => {
    const path =
      desktop !== undefined
        ? await desktop.showSaveDialog({
            title,
            defaultPath: `${startDir()}${info.sep}${suggestedName()}`,
            filters: JOB_FILTERS,
          })
        : await dialogs.pickFile({
            mode: 'save',
            title,
            startDir: startDir(),
            defaultName: suggestedName(),
            ...(note === undefined ? {} : { note }),
          });
    return path === undefined ? undefined : withJobSuffix(path);
  };

  const write = async (path: string, text: string) => {
    await host.request('file.write', { path, text });
  };

  /**
   * Marks the document saved, says so when inputs held changes the file could not get, and has
   * the input files checked again (they may have come or gone since).
   */
  const saved = (path: string, text: string, copied?: string) => {
    store.getState().markSaved(path, text);
    const notices = [savedWithoutNotice(store.getState().unappliedFields), copied];
    const notice = notices.filter((n) => n !== undefined).join(' ');
    store.getState().setNotice(notice === '' ? undefined : notice);
    deps.checkInputFiles?.();
  };

  /** A template's input files, copied beside the job it was first saved as (document/templateData.ts). */
  const copyTemplateData = async (path: string, files: readonly string[]): Promise<string | undefined> => {
    const from = store.getState().templatePath;
    if (from === undefined || files.length === 0) return undefined;
    try {
      return copiedNotice(await host.request('job.copyInputs', { from, to: path, files: [...files] }));
    } catch (error) {
      // The job is saved; its input check will say what is missing.
      deps.report('Could not copy the template’s input files', error);
      return undefined;
    }
  };

  const saveAs = async (): Promise<boolean> => {
    const files = templateDataFiles(store.getState());
    const path = await pickSave('Save job as', copyNote(files));
    if (path === undefined) return false;
    try {
      const text = store.getState().textToSave();
      await write(path, text);
      saved(path, text, await copyTemplateData(path, files));
      await host.request('recent.add', { path });
      return true;
    } catch (error) {
      deps.report('Could not save', error);
      return false;
    }
  };

  const save = async (): Promise<boolean> => {
    const { filePath } = store.getState();
    if (filePath === undefined) return saveAs();
    try {
      const text = store.getState().textToSave();
      await write(filePath, text);
      saved(filePath, text);
      return true;
    } catch (error) {
      deps.report('Could not save', error);
      return false;
    }
  };

  /** True when the current document may be replaced: saved, discarded, or nothing to lose. */
  const confirmDiscard = async (): Promise<boolean> => {
    const state = store.getState();
    if (!isDirty(state)) return true;
    const answer = await dialogs.askUnsaved(state.filePath ?? String(state.draft?.name ?? 'untitled'));
    if (answer === 'cancel') return false;
    if (answer === 'discard') return true;
    return save();
  };

  const openPath = async (path: string): Promise<void> => {
    try {
      const file = await host.request('file.read', { path });
      store.getState().loadText(file.path, file.text);
      deps.checkInputFiles?.();
      await host.request('recent.add', { path: file.path });
    } catch (error) {
      deps.report('Could not open', error);
    }
  };

  return {
    confirmDiscard,
    save,
    saveAs,
    openPath,
    async newDocument() {
      if (await confirmDiscard()) store.getState().newDocument();
    },
    async open() {
      if (!(await confirmDiscard())) return;
      const path = await pickOpen('Open job');
      if (path !== undefined) await openPath(path);
    },
    async openRecent(path: string) {
      if (await confirmDiscard()) await openPath(path);
    },
    /** A template opens as a new, unsaved job so that saving never overwrites the example. */
    async openTemplate(path: string) {
      if (!(await confirmDiscard())) return;
      try {
        const file = await host.request('file.read', { path });
        store.getState().loadText(undefined, file.text, { asNew: true, template: file.path });
      } catch (error) {
        deps.report('Could not open the template', error);
      }
    },
    /** Adds another job's operators and edges to this one (renamed where ids collide), as one step. */
    async importJob() {
      if (store.getState().draft === undefined) return;
      const path = await pickOpen('Import operators from a job');
      if (path === undefined) return;
      try {
        const file = await host.request('file.read', { path });
        const parsed = parseJobFile(file.text);
        if (parsed.kind === 'text') {
          await dialogs.message('Nothing to import', parsed.problems.map((p) => p.message).join('\n'));
          return;
        }
        const fragment = copyFragment(parsed.draft, operatorIds(parsed.draft));
        store.getState().paste(JSON.stringify(fragment));
      } catch (error) {
        deps.report('Could not import', error);
      }
    },
    /** The job without what only the designer needs, for `pipewright run`. Refused while invalid. */
    async exportJob() {
      const { draft } = store.getState();
      if (draft === undefined) return;
      const problems = problemsOf(store.getState());
      if (problems.length > 0) {
        await dialogs.message(
          'Cannot export yet',
          `The job has ${problems.length} problem${problems.length === 1 ? '' : 's'} (see the Problems panel); the engine would refuse it.`,
        );
        return;
      }
      const path = await pickSave('Export job file');
      if (path === undefined) return;
      const { editor: _editor, ...runnable } = draft;
      try {
        await write(path, serializeDraft(runnable));
      } catch (error) {
        deps.report('Could not export', error);
      }
    },
  };
}

export type FileCommands = ReturnType<typeof createFileCommands>;
