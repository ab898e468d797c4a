// Where a path param of a job leads, by its text alone: a relative path against the job file's
// folder, "." and ".." taken as written. The designer decides with it whether a job would read or
// write outside its folder (restricted mode, the trust dialog's list); it cannot see links, so
// the engine decides again when the job runs, with the file system's real paths
// (engine/operators/confinement.ts). Pure: POSIX paths, and Windows ones (a drive letter or
// "\\server\share") when the job file's own path is one.

export interface FolderPath {
  /** The path made absolute and normal, in the job file's own style. */
  readonly resolved: string;
  /** Whether it stays inside the job file's folder (or is that folder). */
  readonly inside: boolean;
}

function isWindowsPath(path: string): boolean {
  return /^[A-Za-z]:[\\/]|^\\\\/.test(path);
}

/** The root ("/", "C:", "\\server") and the parts after it, "." and ".." applied. */
function normal(path: string, windows: boolean): { root: string; parts: string[] } {
  let root = '/';
  let rest = path;
  if (windows) {
    const drive = /^([A-Za-z]:)[\\/]?/.exec(path);
    const unc = /^\\\\([^\\/]+)/.exec(path);
    if (drive !== null) [root, rest] = [drive[1]!.toUpperCase(), path.slice(drive[0].length)];
    else if (unc !== null) [root, rest] = [`\\\\${unc[1]}`, path.slice(unc[0].length)];
  }
  const parts: string[] = [];
  for (const part of rest.split(windows ? /[\\/]+/ : /\/+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return { root, parts };
}

function isAbsolute(path: string, windows: boolean): boolean {
  return windows ? /^[A-Za-z]:|^[\\/]/.test(path) : path.startsWith('/');
}

/** Where `path`, a param of the job in `jobFile` (an absolute path), leads, and whether that is inside its folder. */
export function jobFolderPath(jobFile: string, path: string): FolderPath {
  const windows = isWindowsPath(jobFile);
  const sep = windows ? '\\' : '/';
  const folder = normal(jobFile, windows);
  folder.parts.pop();
  const target = isAbsolute(path, windows)
    ? normal(/^[\\/]/.test(path) && windows ? `${folder.root}${path}` : path, windows)
    : normal(`${[folder.root, ...folder.parts].join(sep)}${sep}${path}`, windows);
  const same = (a: string, b: string) => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
  const inside =
    same(target.root, folder.root) &&
    target.parts.length >= folder.parts.length &&
    folder.parts.every((part, i) => same(part, target.parts[i]!));
  const resolved =
    target.root === '/' ? `/${target.parts.join('/')}` : `${target.root}${sep}${target.parts.join(sep)}`;
  return { resolved, inside };
}
