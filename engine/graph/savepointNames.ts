// How a savepoint to go on from is named (`--from-savepoint`, Run on Flink…'s field): a path of
// this machine, or a URI (`file:`, `s3://`, `hdfs://`) that Flink reads as it is. Pure: the CLI,
// the host and the renderer's dialog decide alike.

/** Whether `text` begins with a URI's scheme: Flink's to read, not a path to resolve here. */
export function hasUriScheme(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(text);
}

/** A name that means the same to every process: an absolute path, or a URI. */
export function isAbsoluteOrUri(text: string): boolean {
  return text.startsWith('/') || hasUriScheme(text);
}
