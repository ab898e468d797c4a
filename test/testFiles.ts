// The test files under some folders, as paths relative to the repository with '/' separators:
// the vitest configs sort them into projects and tiers by what each file needs.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function testFiles(folders: readonly string[], root: string): string[] {
  return folders
    .flatMap((folder) =>
      readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).map((f) =>
        `${folder}/${f}`.replaceAll('\\', '/'),
      ),
    )
    .filter((f) => /\.test\.tsx?$/.test(f) && !f.includes('/node_modules/'))
    .sort();
}
