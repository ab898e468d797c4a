// One operator's connection to Redis: a node-redis client made on first use and made again after
// the server went away, every call through ServerRetry. The client itself never reconnects on its
// own (reconnectStrategy false): ServerRetry does the waiting, so the run's status says what the
// operator waits for and the job fails once retryTimeoutMs has passed.
import { createClient, type RedisClientType } from 'redis';
import { JobError } from '../../graph/jobError.js';
import { serverAddress } from '../../graph/serverAddress.js';
import { describeCause, ServerRetry } from '../connectors/serverRetry.js';

export type RedisClient = RedisClientType;

const CONNECT_TIMEOUT_MS = 5_000;

/** "Redis at host:port", never the password a URL may carry (see serverAddress). */
export function describeRedisServer(url: string): string {
  const address = serverAddress(url, 6379);
  return address === undefined ? 'Redis' : `Redis at ${address}`;
}

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const TRANSIENT_NAMES = new Set([
  'ClientClosedError',
  'ClientOfflineError',
  'ConnectionTimeoutError',
  'SocketClosedUnexpectedlyError',
  'SocketTimeoutError',
  'DisconnectsClientError',
  'ReconnectStrategyError',
]);
/** Replies a server gives while it cannot serve yet (loading its data, a failover). */
const TRANSIENT_REPLIES = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN)\b/;

/** The server being away or not ready: worth waiting out. A reply such as WRONGTYPE is not. */
export function isTransientRedisError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && TRANSIENT_CODES.has(code)) return true;
  if (TRANSIENT_NAMES.has(error.constructor.name)) return true;
  return TRANSIENT_REPLIES.test(error.message);
}

/** Connects one client, failing (not retrying) when the server does not answer. */
export async function connectRedis(url: string, connectTimeoutMs = CONNECT_TIMEOUT_MS): Promise<RedisClient> {
  const client = createClient({
    url,
    socket: { reconnectStrategy: false, connectTimeout: connectTimeoutMs },
  }) as RedisClient;
  // Without a listener an 'error' event would end the process; every failure also reaches the
  // call that met it, which is where it is handled.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw error;
  }
  return client;
}

export class RedisConnection {
  readonly server: string;
  private readonly retry: ServerRetry;
  private client: RedisClient | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    readonly operatorId: string,
    retryTimeoutMs: number | undefined,
    reportWait: ((message: string | undefined) => void) | undefined,
  ) {
    this.server = describeRedisServer(url);
    this.retry = new ServerRetry({
      operatorId,
      server: this.server,
      timeoutMs: retryTimeoutMs,
      reportWait,
      isTransient: isTransientRedisError,
    });
  }

  /**
   * `call` with a connected client, retried while the server is away; any other error becomes one
   * line naming the operator and what it was doing (a JobError passes as it is).
   */
  async run<T>(action: string, call: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      return await this.retry.run(action, async () => {
        if (this.closed) throw new JobError(`operator "${this.operatorId}" is closed`, this.operatorId);
        const client = await this.connected();
        try {
          return await call(client);
        } catch (error) {
          // A client that met the server going away is closed: the next attempt makes a new one.
          if (isTransientRedisError(error)) this.drop(client);
          throw error;
        }
      });
    } catch (error) {
      if (error instanceof JobError) throw error;
      throw new JobError(
        `operator "${this.operatorId}": ${this.server} refused ${action}: ${describeCause(error)}`,
        this.operatorId,
      );
    }
  }

  private async connected(): Promise<RedisClient> {
    if (this.client?.isReady) return this.client;
    if (this.client !== undefined) this.drop(this.client);
    const client = await connectRedis(this.url);
    if (this.closed) {
      client.destroy();
      throw new JobError(`operator "${this.operatorId}" is closed`, this.operatorId);
    }
    this.client = client;
    return client;
  }

  private drop(client: RedisClient): void {
    if (this.client === client) this.client = undefined;
    if (client.isOpen) client.destroy();
  }

  /** Lets the connection go until the next call (a committer between two commits). */
  release(): void {
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) client.destroy();
  }

  /** Ends the connection; a call in flight (a blocking read) fails, and no new one starts. */
  close(): void {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) client.destroy();
  }
}
