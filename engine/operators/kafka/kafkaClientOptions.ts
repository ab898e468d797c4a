// The options every Kafka client of a connector is made with. The client's own retries are off:
// ServerRetry (connectors/serverRetry.ts) does the waiting, with the status saying what for and
// the operator's retryTimeoutMs bounding it, rather than the client retrying three times unseen.
import { serverAddress } from '../../graph/serverAddress.js';

/** "host:port[,host:port...]" as the client's broker list. */
export function kafkaBrokers(bootstrapServers: string): string[] {
  return bootstrapServers
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
}

/** The base options: client id, brokers, a request timeout, no retries of the client's own. */
export function kafkaClientOptions(clientId: string, bootstrapServers: string) {
  return {
    clientId,
    bootstrapBrokers: kafkaBrokers(bootstrapServers),
    retries: 0,
    timeout: 10_000,
    // A topic that does not exist is an error, never created by asking for it.
    autocreateTopics: false,
  };
}

/** "Kafka at localhost:9092", as messages name the server: hosts and ports only (see serverAddress). */
export function kafkaServerName(bootstrapServers: string): string {
  const address = serverAddress(kafkaBrokers(bootstrapServers).join(','), 9092);
  return address === undefined ? 'Kafka' : `Kafka at ${address}`;
}
