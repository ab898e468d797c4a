// What trusting the open job would grant, and whether the designer is in restricted mode for it
// (docs/security.md): a job that is not trusted and reads or writes a file outside its folder,
// connects to a server or reads an environment variable can be viewed, edited and validated, but
// not run, debugged or have its connections tested. A job that needs none of these needs no trust.
// Paths are judged by their text here (jobFolderPath); the engine judges them again, links
// followed, when the job runs.
import { jobFolderPath, jobReach } from '../../engine/graph/index.js';
import type { JobDraft } from '../document/jobDraft';
import type { DesignerState } from '../store/designerStore';

export interface OutsideFile {
  readonly operator: string;
  readonly access: 'read' | 'write';
  /** Where the path leads from the job file's folder. */
  readonly resolved: string;
}

export interface WhatItWillDo {
  readonly files: readonly OutsideFile[];
  readonly servers: readonly { readonly operator: string; readonly address: string | undefined }[];
  readonly env: readonly { readonly operator: string; readonly variable: string }[];
}

const cache = new WeakMap<JobDraft, { filePath: string | undefined; will: WhatItWillDo }>();

/** What the draft of the job file at `filePath` reaches beyond its folder and its own records. */
export function whatItWillDo(draft: JobDraft, filePath: string | undefined): WhatItWillDo {
  const cached = cache.get(draft);
  if (cached !== undefined && cached.filePath === filePath) return cached.will;
  const operators = Array.isArray(draft.operators) ? draft.operators : [];
  const reach = jobReach(operators);
  const files = reach.files.flatMap((use) => {
    // A job with no file yet has no folder: any path it names leads somewhere of its choosing.
    const where =
      filePath === undefined ? { resolved: use.path, inside: false } : jobFolderPath(filePath, use.path);
    return where.inside ? [] : [{ operator: use.operator, access: use.access, resolved: where.resolved }];
  });
  const will: WhatItWillDo = {
    files,
    servers: reach.servers.map(({ operator, address }) => ({ operator, address })),
    env: reach.env.map(({ operator, variable }) => ({ operator, variable })),
  };
  cache.set(draft, { filePath, will });
  return will;
}

export function needsTrust(will: WhatItWillDo): boolean {
  return will.files.length > 0 || will.servers.length > 0 || will.env.length > 0;
}

/** Run, Debug and Test connection are off: the job is not (yet known to be) trusted and needs trust. */
export function isRestricted(state: Pick<DesignerState, 'draft' | 'filePath' | 'trust'>): boolean {
  if (state.trust === 'trusted' || state.draft === undefined) return false;
  return needsTrust(whatItWillDo(state.draft, state.filePath));
}

/** The banner shows once the host has said the job is not trusted (not while it is asked). */
export function showsRestrictedBanner(state: Pick<DesignerState, 'draft' | 'filePath' | 'trust'>): boolean {
  return state.trust === 'untrusted' && isRestricted(state);
}
