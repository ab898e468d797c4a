// What the inspector says of a param that names an environment variable ("${env:PG_URL}", read
// when the job runs, never stored in the job file), and of a connection param that holds a
// password typed into it, which would end up in the job file. Pure: the fields call it per value.
import { ENV_REFERENCE } from '../../engine/graph/index.js';

export const ENV_HINT = 'read from the environment when the job runs; never stored in the job file.';

export const PASSWORD_WARNING = 'A password in the job file: use ${env:NAME}.';

/** The variables a value names, in order, each once. */
export function envNames(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  const names = [...value.matchAll(new RegExp(ENV_REFERENCE.source, 'g'))].map((m) => m[1] ?? '');
  return [...new Set(names)];
}

// "scheme://user:password@": the password is what lies between the first ":" after the scheme's
// "//" and the "@" that ends the user info (a password may hold ":", not "@" or "/").
const USER_INFO = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/@?#\s]*)@/;

/**
 * Whether a connection string holds a password as written, not as an environment reference:
 * "postgres://pw:secret@db/x" does, "postgres://pw:${env:PG_PASSWORD}@db/x" and "${env:PG_URL}"
 * do not, nor does a URL with a user and no password.
 */
export function holdsLiteralPassword(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const userInfo = USER_INFO.exec(value.trim())?.[1];
  if (userInfo === undefined) return false;
  const colon = userInfo.indexOf(':');
  if (colon === -1) return false;
  const password = userInfo.slice(colon + 1);
  return password.replace(new RegExp(ENV_REFERENCE.source, 'g'), '') !== '';
}

/**
 * The reference the kind starts this param with (its default params say "${env:PG_URL}"), which
 * the warning offers in place of a typed password; undefined when the kind starts it otherwise.
 */
export function suggestedReference(defaultValue: unknown): string | undefined {
  if (typeof defaultValue !== 'string') return undefined;
  return /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(defaultValue) ? defaultValue : undefined;
}
