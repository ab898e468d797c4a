// The designer's side of trust (docs/security.md): whether the user trusts a job file as it was
// opened, and recording that they do, when they say so ("Trust this job…") or save a job they
// trust. Kept in the data folder's trusted.json, which the CLI reads too (deploy/trustList.ts):
// one hash per job file, the text trusted last. Records are added one after another, so two at
// once cannot both read the old list and lose one; a hand-made `folders` list is kept as it is.
import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { contentHash, readTrustList, trustedBy, trustListFile } from '../deploy/trustList.js';
import { writeTextFileAtomic } from './hostFiles.js';

function absolute(path: string, action: string): string {
  if (!isAbsolute(path)) throw new Error(`Cannot ${action} ${path}: the path must be absolute`);
  return resolve(path);
}

export class TrustedJobs {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataDir: string) {}

  /** Whether the job file at `path`, with this text, is trusted (its text, or a folder above it). */
  async check(path: string, text: string): Promise<{ trusted: boolean }> {
    const file = absolute(path, 'check the trust of');
    const { list } = await readTrustList(this.dataDir);
    return { trusted: (await trustedBy(list, file, text)) !== undefined };
  }

  /** Records that the user trusts the job file at `path` with this text (replacing an older text's record). */
  grant(path: string, text: string): Promise<Record<string, never>> {
    const next = this.queue.then(() => this.grantNow(path, text));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async grantNow(path: string, text: string): Promise<Record<string, never>> {
    const file = absolute(path, 'trust');
    const listFile = trustListFile(this.dataDir);
    let saved: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(await readFile(listFile, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('it is not a JSON object');
      saved = parsed as Record<string, unknown>;
    } catch (error) {
      // A list the user broke by hand is theirs to mend: writing over it would lose its folders.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new Error(
          `Cannot trust ${file}: ${listFile} cannot be read (${(error as Error).message}); mend or remove it`,
        );
    }
    const jobs =
      typeof saved.jobs === 'object' && saved.jobs !== null && !Array.isArray(saved.jobs) ? saved.jobs : {};
    const next = { ...saved, jobs: { ...jobs, [file]: contentHash(text) } };
    try {
      await mkdir(this.dataDir, { recursive: true });
    } catch (error) {
      throw new Error(`Cannot create the data folder ${this.dataDir}: ${(error as Error).message}`);
    }
    await writeTextFileAtomic(listFile, `${JSON.stringify(next, null, 2)}\n`);
    return {};
  }
}
