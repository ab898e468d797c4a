// Transactions a killed run left open, found and aborted as Flink's KafkaSink does: the ids that
// run would have used from a given epoch on are fenced with InitProducerId (which aborts an open
// transaction), one after the other until one that was never used (its epoch comes back 0). Each
// writer does so for its own subtask index from its first epoch (after a restore, the epoch after
// the restored checkpoint); the committer's recover for the indices a restored run had beyond
// today's parallelism. Ids before that epoch belong to the restored checkpoint, whose commit the
// committer redoes. (A probe leaves the id it stops at known to the broker; a later probe of the
// same ids goes one further: harmless.)
import type { BrokerCalls } from './brokerCalls.js';
import type { KafkaSinkSettings } from './kafkaSinkSettings.js';
import { TransactionCoordinator } from './transactionCoordinator.js';

export async function abortLingering(
  settings: KafkaSinkSettings,
  subtasks: readonly number[],
  firstEpoch: number,
  calls: BrokerCalls,
): Promise<void> {
  if (subtasks.length === 0) return;
  const coordinator = new TransactionCoordinator(
    `pipewright-${settings.operatorId}`,
    settings.bootstrapServers,
  );
  try {
    await Promise.all(
      subtasks.map(async (subtask) => {
        for (let epoch = firstEpoch; ; epoch++) {
          const id = `${settings.transactionalIdPrefix}-${subtask}-${epoch}`;
          const fenced = await calls.run(`aborting Kafka transaction "${id}" an earlier run left open`, () =>
            coordinator.initProducerId(id, settings.transactionTimeoutMs),
          );
          if (fenced.epoch === 0) return;
        }
      }),
    );
  } finally {
    await coordinator.close().catch(() => {});
  }
}
