// Paths as the job file writes them, resolved the way the engine resolves them (node:path's
// posix rules) without Node, since validation runs in the designer too: "." and empty parts
// dropped, ".." taking back the part before it. Symbolic links cannot be seen from here.

export const isAbsolutePath = (path: string): boolean => path.startsWith('/');

/** "a//b/./c/../d/" -> "a/b/d"; "/../x" -> "/x"; "../x" stays. */
export function normalizePath(path: string): string {
  const absolute = isAbsolutePath(path);
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts.at(-1) !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined === '' ? '.' : joined;
}

/** `path` against the folder `base` (itself made absolute by the caller), normalised. */
export function resolvePath(base: string, path: string): string {
  return normalizePath(isAbsolutePath(path) ? path : `${base}/${path}`);
}
