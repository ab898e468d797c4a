// What a Kafka client error means to a connector, shared by source.kafka and sink.kafka: whether
// it is the broker being away (worth waiting out with ServerRetry) or something waiting cannot
// mend (a missing topic, bad credentials), whether it says a topic does not exist, and its cause
// in one line. The client (@platformatic/kafka) throws GenericError / MultipleErrors trees: a
// NetworkError per broker it could not reach, a ProtocolError per error code a broker answered.

interface ClientError {
  readonly name?: string;
  readonly code?: string;
  readonly message?: string;
  readonly apiId?: string;
  readonly canRetry?: boolean;
  readonly errors?: readonly unknown[];
  readonly cause?: unknown;
}

/** Protocol error codes that say the broker (or its leader for a partition) is busy or moving. */
const TRANSIENT_PROTOCOL = new Set([
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_OR_FOLLOWER',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'NOT_COORDINATOR',
  'COORDINATOR_NOT_AVAILABLE',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'REQUEST_TIMED_OUT',
  'NETWORK_EXCEPTION',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'KAFKA_STORAGE_ERROR',
  'CONCURRENT_TRANSACTIONS',
  'OFFSET_NOT_AVAILABLE',
  'BROKER_NOT_AVAILABLE',
  'THROTTLING_QUOTA_EXCEEDED',
]);

const MISSING_TOPIC_PROTOCOL = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'UNKNOWN_TOPIC_ID']);

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

function asClientError(error: unknown): ClientError | undefined {
  return error !== null && typeof error === 'object' ? (error as ClientError) : undefined;
}

/** The error and every error nested in it (MultipleErrors' errors, causes). */
function* errorTree(error: unknown, depth = 0): Generator<ClientError> {
  const e = asClientError(error);
  if (e === undefined || depth > 6) return;
  yield e;
  for (const inner of e.errors ?? []) yield* errorTree(inner, depth + 1);
  if (e.cause !== undefined) yield* errorTree(e.cause, depth + 1);
}

/**
 * The topic whose absence the error reports, or '' when it reports a missing topic without
 * naming it; undefined when it is about something else.
 */
export function missingTopicIn(error: unknown): string | undefined {
  for (const e of errorTree(error)) {
    const unknown = /^Unknown topic (.+?)\.?$/.exec(e.message ?? '');
    if (unknown !== null) return unknown[1];
    if (e.apiId !== undefined && MISSING_TOPIC_PROTOCOL.has(e.apiId)) return '';
  }
  return undefined;
}

/** Whether the error says a topic (or one of its partitions) does not exist. */
export function isMissingTopic(error: unknown): boolean {
  return missingTopicIn(error) !== undefined;
}

/**
 * Whether waiting may mend the error: the broker unreachable, a connection dropped, a request
 * timed out, a leader moving. A missing topic, bad credentials or a broker refusing a request
 * are not: they fail at once.
 */
export function isTransientKafkaError(error: unknown): boolean {
  if (isMissingTopic(error)) return false;
  let transient = false;
  for (const e of errorTree(error)) {
    if (e.code === 'PLT_KFK_AUTHENTICATION' || e.code === 'PLT_KFK_USER') return false;
    if (e.apiId !== undefined) {
      if (!TRANSIENT_PROTOCOL.has(e.apiId)) return false;
      transient = true;
    }
    if (e.code === 'PLT_KFK_NETWORK' || e.code === 'PLT_KFK_TIMEOUT') transient = true;
    if (e.code !== undefined && SOCKET_CODES.has(e.code)) transient = true;
  }
  return transient;
}

/**
 * The error's cause in one line: the innermost messages that say something (the client wraps a
 * refused connection as "Cannot connect to any broker." around "Connection to h:p failed.").
 */
export function describeKafkaError(error: unknown): string {
  const parts: string[] = [];
  for (const e of errorTree(error)) {
    const text = (e.message ?? '').split('\n', 1)[0]!.trim();
    const detail = e.apiId !== undefined ? `${e.apiId}: ${text}` : text;
    if (detail !== '' && !parts.some((p) => p.includes(detail))) parts.push(detail);
    if (parts.length === 3) break;
  }
  if (parts.length === 0) return String(error);
  return parts.length === 1 ? parts[0]! : `${parts[0]} (${parts.slice(1).join('; ')})`;
}

/** `operator "x": Kafka topic "t" does not exist at localhost:9092`. */
export function missingTopicMessage(operatorId: string, topic: string, brokers: string): string {
  return `operator "${operatorId}": Kafka topic "${topic}" does not exist at ${brokers}`;
}
