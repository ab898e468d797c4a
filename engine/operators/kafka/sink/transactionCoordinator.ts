// Talking to Kafka's transaction coordinator directly, with the protocol's own requests, for what
// a producer object cannot do: commit a transaction another thread (or an earlier run) began,
// from its transactionalId, producerId and epoch alone ("resuming" it, as Flink's KafkaCommitter
// does), and fence a transactional id so that whatever it left open is aborted (InitProducerId).
import {
  ConnectionPool,
  endTxnV4,
  FindCoordinatorKeyTypes,
  findCoordinatorV6,
  initProducerIdV5,
} from '@platformatic/kafka';
import { kafkaBrokers } from '../kafkaClientOptions.js';

/** What a committer needs to end a transaction it did not begin. */
export interface TransactionHandle {
  readonly transactionalId: string;
  /** The producer id, as decimal text (an INT64: JSON has no bigint). */
  readonly producerId: string;
  readonly epoch: number;
}

/** The producer id and epoch InitProducerId gave a transactional id. */
export interface ProducerIdentity {
  readonly producerId: bigint;
  readonly epoch: number;
}

type Broker = { host: string; port: number };

/** Error codes the coordinator answers while it is still finishing the id's previous transaction. */
const BUSY = new Set(['CONCURRENT_TRANSACTIONS', 'COORDINATOR_LOAD_IN_PROGRESS']);
const BUSY_RETRIES = 50;
const BUSY_DELAY_MS = 100;

function apiIds(error: unknown): string[] {
  const ids: string[] = [];
  const walk = (e: unknown, depth: number) => {
    if (e === null || typeof e !== 'object' || depth > 6) return;
    const { apiId, errors } = e as { apiId?: string; errors?: unknown[] };
    if (apiId !== undefined) ids.push(apiId);
    for (const inner of errors ?? []) walk(inner, depth + 1);
  };
  walk(error, 0);
  return ids;
}

/** Whether an EndTxn(commit) error says the transaction is no longer open under that epoch. */
export function isAlreadyEnded(error: unknown): boolean {
  return apiIds(error).some((id) =>
    [
      'INVALID_TXN_STATE',
      'PRODUCER_FENCED',
      'INVALID_PRODUCER_EPOCH',
      'INVALID_PRODUCER_ID_MAPPING',
      'TRANSACTIONAL_ID_NOT_FOUND',
    ].includes(id),
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class TransactionCoordinator {
  private readonly pool: ConnectionPool;
  private readonly brokers: Broker[];

  constructor(clientId: string, bootstrapServers: string) {
    this.pool = new ConnectionPool(clientId, { connectTimeout: 5_000, requestTimeout: 30_000 } as never);
    this.brokers = kafkaBrokers(bootstrapServers).map((text) => {
      const at = text.lastIndexOf(':');
      return at < 0
        ? { host: text, port: 9092 }
        : { host: text.slice(0, at), port: Number(text.slice(at + 1)) };
    });
  }

  /** The broker that coordinates `transactionalId`'s transactions. */
  private async coordinator(transactionalId: string) {
    const bootstrap = await this.pool.getFirstAvailable(this.brokers);
    const response = await findCoordinatorV6.api.async(bootstrap, FindCoordinatorKeyTypes.TRANSACTION, [
      transactionalId,
    ]);
    const found = response.coordinators[0]!;
    return this.pool.get({ host: found.host, port: found.port });
  }

  /** Repeats `call` while the coordinator says it is busy with the id's previous transaction. */
  private async whileBusy<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= BUSY_RETRIES || !apiIds(error).some((id) => BUSY.has(id))) throw error;
        await sleep(BUSY_DELAY_MS);
      }
    }
  }

  /** Commits (or aborts) the transaction `handle` names, whoever began it. */
  endTransaction(handle: TransactionHandle, commit: boolean): Promise<void> {
    return this.whileBusy(async () => {
      const connection = await this.coordinator(handle.transactionalId);
      await endTxnV4.api.async(
        connection,
        handle.transactionalId,
        BigInt(handle.producerId),
        handle.epoch,
        commit,
      );
    });
  }

  /**
   * InitProducerId for `transactionalId`: fences every earlier producer of it and aborts the
   * transaction it left open. Epoch 0 in the answer means the id had never been used.
   */
  initProducerId(transactionalId: string, transactionTimeoutMs: number): Promise<ProducerIdentity> {
    return this.whileBusy(async () => {
      const connection = await this.coordinator(transactionalId);
      const response = await initProducerIdV5.api.async(
        connection,
        transactionalId,
        transactionTimeoutMs,
        -1n,
        -1,
      );
      return { producerId: response.producerId, epoch: response.producerEpoch };
    });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
