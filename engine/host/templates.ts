// The job templates the start screen offers: each folder of assets/examples holding a job file.
// A template that cannot be read is an error naming its file, not a silent gap on the start
// screen: the examples ship with the app, so a broken one is a bug to see.
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TemplateInfo } from '../protocol/protocol.js';

const JOB_FILE_SUFFIX = '.job.json';

async function readTemplate(folder: string, name: string): Promise<TemplateInfo | undefined> {
  const files = (await readdir(folder)).filter((file) => file.endsWith(JOB_FILE_SUFFIX)).sort();
  const file = files[0];
  if (file === undefined) return undefined;
  const path = join(folder, file);
  let job: { name?: unknown; description?: unknown };
  try {
    job = JSON.parse(await readFile(path, 'utf8')) as typeof job;
  } catch (error) {
    throw new Error(`Cannot read the template ${path}: ${(error as Error).message}`);
  }
  return {
    name,
    title: typeof job.name === 'string' ? job.name : name,
    description: typeof job.description === 'string' ? job.description : '',
    path,
  };
}

export async function listTemplates(examplesDir: string): Promise<TemplateInfo[]> {
  let folders: Dirent[];
  try {
    folders = await readdir(examplesDir, { withFileTypes: true });
  } catch (error) {
    throw new Error(`Cannot list the templates in ${examplesDir}: ${(error as Error).message}`);
  }
  const templates: TemplateInfo[] = [];
  for (const folder of folders
    .filter((entry) => entry.isDirectory())
    .sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const template = await readTemplate(join(examplesDir, folder.name), folder.name);
    if (template !== undefined) templates.push(template);
  }
  return templates;
}
