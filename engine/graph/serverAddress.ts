// The servers a connection string names, as host and port and nothing else. Messages (a wait
// line, a failure, "Test connection") and the designer's trust dialog name servers this way, so
// that no user name, password, database option or query of a connection string is ever printed:
// whatever the string holds, only text that reads as a host name (or address) and a port number
// comes out. A string that is no well-formed URL (no scheme, a "/" in the password) is read from
// its last "@", where a URL's host part starts; a string of which nothing reads as a host gives
// no address. Pure: the designer runs it too.

/** A host name, an IPv4 address or a bracketed IPv6 address. */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])$/;
const PORT = /^[0-9]{1,5}$/;
/** `scheme://` at the start or after a comma (a Kafka broker list may give one per broker). */
const SCHEME = /(^|,)\s*[A-Za-z][A-Za-z0-9+.-]*:\/\//g;
/** libpq's keyword/value form: `host=db port=5432 dbname=x`. */
const KEYWORD_HOST = /(?:^|\s)(?:host|hostaddr)\s*=\s*('[^']*'|\S+)/i;
const KEYWORD_PORT = /(?:^|\s)port\s*=\s*('[^']*'|\S+)/i;

function hostAndPort(host: string, port: string | undefined, defaultPort: number | undefined) {
  if (!HOST.test(host)) return undefined;
  if (port !== undefined && !PORT.test(port)) return undefined;
  const shown = port ?? (defaultPort === undefined ? undefined : String(defaultPort));
  return shown === undefined ? host : `${host}:${shown}`;
}

/** "host", "host:port" or "[::1]:port". */
function oneServer(text: string, defaultPort: number | undefined): string | undefined {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(text.trim());
  if (match === null) return undefined;
  return hostAndPort(match[1]!, match[2], defaultPort);
}

function keywordValue(text: string, defaultPort: number | undefined): string | undefined {
  const unquote = (value: string) => value.replace(/^'(.*)'$/, '$1');
  const host = KEYWORD_HOST.exec(text)?.[1];
  if (host === undefined) return undefined;
  const port = KEYWORD_PORT.exec(text)?.[1];
  const hosts = unquote(host).split(',');
  const ports = port === undefined ? [] : unquote(port).split(',');
  const servers = hosts.map((h, i) =>
    hostAndPort(h.trim(), ports[i]?.trim() ?? ports[0]?.trim(), defaultPort),
  );
  return servers.every((s) => s !== undefined) ? servers.join(',') : undefined;
}

/**
 * The servers `connection` names, "host:port" (comma-separated when it names several), with
 * `defaultPort` where it gives none; undefined when nothing in it reads safely as a server.
 */
export function serverAddress(connection: string, defaultPort?: number): string | undefined {
  const text = connection.trim();
  if (!text.includes('://') && KEYWORD_HOST.test(text)) return keywordValue(text, defaultPort);
  const rest = text.replace(SCHEME, '$1');
  // Everything up to the last "@" is user and password (however badly escaped); the host part
  // ends where a path, query or fragment begins.
  const at = rest.lastIndexOf('@');
  const authority = (at === -1 ? rest : rest.slice(at + 1)).split(/[/?#]/, 1)[0]!;
  if (authority.trim() === '') return undefined;
  const servers = authority.split(',').map((part) => oneServer(part, defaultPort));
  return servers.every((s) => s !== undefined) ? servers.join(',') : undefined;
}
