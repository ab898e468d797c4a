// sink.kafka's committer (exactly once), as Flink's KafkaCommitter: a checkpoint's commit lists
// the transactions its subtasks left open at the barrier, and once the checkpoint is complete
// each is committed by "resuming" it: EndTxn(commit) with its transactional id, producer id and
// epoch, sent to its transaction coordinator, whichever thread or run began it. A restore commits
// them again: one already committed (or fenced since) counts as done. A transaction the broker
// aborted for its timeout is gone with its records (see transactionTimeoutMs).
import type { ConnectorState } from '../../../runtime/connectorState.js';
import type { SinkCommitter } from '../../../runtime/sink.js';
import { BrokerCalls } from './brokerCalls.js';
import { KAFKA_SINK_KIND, type KafkaSinkSettings } from './kafkaSinkSettings.js';
import { abortLingering } from './lingeringTransactions.js';
import { isAlreadyEnded, TransactionCoordinator, type TransactionHandle } from './transactionCoordinator.js';

interface KafkaCommit {
  readonly transactions: readonly TransactionHandle[];
  /** The sink's parallelism then: a restore at a lower one aborts what the other subtasks left open. */
  readonly parallelism: number;
}

export class KafkaSinkCommitter implements SinkCommitter {
  private readonly retry: BrokerCalls;

  constructor(
    private readonly settings: KafkaSinkSettings,
    retryTimeoutMs: number | undefined,
  ) {
    this.retry = new BrokerCalls(settings.operatorId, settings.bootstrapServers, retryTimeoutMs, undefined);
  }

  async prepare(
    _checkpointId: number,
    committables: readonly ConnectorState[],
  ): Promise<ConnectorState | undefined> {
    const transactions = committables
      .filter((c) => c.kind === KAFKA_SINK_KIND)
      .map((c) => c.payload as TransactionHandle);
    const commit: KafkaCommit = { transactions, parallelism: this.settings.parallelism };
    return { kind: KAFKA_SINK_KIND, payload: commit };
  }

  commit(commit: ConnectorState): Promise<void> {
    return this.commitAll((commit.payload as KafkaCommit).transactions);
  }

  commitRemaining(last: readonly ConnectorState[]): Promise<void> {
    return this.commitAll(
      last.filter((c) => c.kind === KAFKA_SINK_KIND).map((c) => c.payload as TransactionHandle),
    );
  }

  async recover(commit: ConnectorState | undefined, checkpointId: number): Promise<void> {
    if (commit === undefined || commit.kind !== KAFKA_SINK_KIND) return;
    const { transactions, parallelism } = commit.payload as KafkaCommit;
    await this.commitAll(transactions);
    // The writers abort what their own indices left open; the indices gone with a lower parallelism, here.
    const gone = Array.from(
      { length: Math.max(0, parallelism - this.settings.parallelism) },
      (_, i) => this.settings.parallelism + i,
    );
    await abortLingering(this.settings, gone, checkpointId + 1, this.retry);
  }

  private async commitAll(transactions: readonly TransactionHandle[]): Promise<void> {
    if (transactions.length === 0) return;
    const coordinator = new TransactionCoordinator(
      `pipewright-${this.settings.operatorId}`,
      this.settings.bootstrapServers,
    );
    try {
      await Promise.all(
        transactions.map((handle) =>
          this.retry.run(`committing Kafka transaction "${handle.transactionalId}"`, async () => {
            try {
              await coordinator.endTransaction(handle, true);
            } catch (error) {
              // Committed before (a restore commits again), or fenced after its commit.
              if (!isAlreadyEnded(error)) throw error;
            }
          }),
        ),
      );
    } finally {
      await coordinator.close().catch(() => {});
    }
  }
}
