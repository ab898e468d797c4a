// What the PostgreSQL connectors (source and sink) say about their server and its errors, worded
// once: the server in words without its password, and which errors are the server being away
// (worth retrying with backoff) rather than a fault waiting cannot mend (bad password, missing
// table, a setting the server lacks).
import { serverAddress } from '../../graph/serverAddress.js';

/**
 * The database a postgres:// URL names, read as serverAddress reads the host (after the last
 * "@"), when it is a plain name; undefined otherwise.
 */
function databaseOf(connection: string): string | undefined {
  const rest = /^postgres(?:ql)?:\/\/(.*)$/is.exec(connection.trim())?.[1];
  if (rest === undefined) return undefined;
  const database = /^[^/?#]*\/([^?#]*)/.exec(rest.slice(rest.lastIndexOf('@') + 1))?.[1];
  return database !== undefined && /^[A-Za-z0-9_.$-]+$/.test(database) ? database : undefined;
}

/**
 * "PostgreSQL at host:port/db": a connection string in words, its host and port only (and the
 * database of a well-formed URL), never its user's password (see serverAddress).
 */
export function postgresServer(connection: string): string {
  const address = serverAddress(connection, 5432);
  if (address === undefined) return 'PostgreSQL';
  const database = databaseOf(connection);
  return `PostgreSQL at ${address}${database === undefined ? '' : `/${database}`}`;
}

/** Socket errors of a server that is down, restarting or unreachable for now. */
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not yet back: class 08 (connection exception),
 * admin/crash shutdown, "the database system is starting up", too many connections.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** The SQLSTATE of a server error ("28P01"), or undefined for other errors. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Whether an error is the server being away (refused, reset, shutting down), worth waiting out. */
export function isTransientPgError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (TRANSIENT_SOCKET_CODES.has(code)) return true;
    if (code.startsWith('08') || TRANSIENT_SQLSTATES.has(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  // pg's own words when the socket closes under a query or a connect.
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/** SQLSTATEs that mean the login itself was refused: the connection string needs fixing. */
export function isAuthenticationError(error: unknown): boolean {
  const state = sqlState(error);
  return state === '28P01' || state === '28000';
}
