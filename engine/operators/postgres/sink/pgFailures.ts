// Which PostgreSQL failures are the server being away (worth waiting out) and which are the
// job's to fix. (The PostgreSQL source has engine/operators/postgres/pgErrors.ts for the same
// question; this sink keeps its own small answer until both can share one.)

const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/** SQLSTATEs of a server shutting down, starting up, or out of connections. */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);

export function isTransientPgError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (TRANSIENT_SOCKET_CODES.has(code) || TRANSIENT_SQLSTATES.has(code)) return true;
    // Class 08: connection exceptions.
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  // pg's own words when the socket closed under it, or a connect that timed out.
  return /Connection terminated|connection error and is not queryable|timeout expired|Client was closed/i.test(
    error.message,
  );
}

/** The SQLSTATE of a server error, if it is one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
