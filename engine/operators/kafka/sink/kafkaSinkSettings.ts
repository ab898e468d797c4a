// What a sink.kafka operator's writers and committer share, worked out once from its params and
// the run: the guarantee, the transactional ids' prefix, the transaction timeout, the first epoch.
import { basename, dirname } from 'node:path';
import type { ParamsOf } from '../../../graph/schema.js';
import type { OperatorContext } from '../../kindFactory.js';

export const KAFKA_SINK_KIND = 'sink.kafka';

/** The broker's default transaction.max.timeout.ms: the longest a transaction may stay open. */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 900_000;

export interface KafkaSinkSettings {
  readonly operatorId: string;
  readonly bootstrapServers: string;
  readonly exactlyOnce: boolean;
  readonly parallelism: number;
  /** Transactional ids are `${prefix}-${subtask}-${epoch}`. */
  readonly transactionalIdPrefix: string;
  readonly transactionTimeoutMs: number;
  /** The epoch (the checkpoint that will close it) the run's first transactions belong to. */
  readonly firstEpoch: number;
}

export function kafkaSinkSettings({ planned, checkpoints }: OperatorContext): KafkaSinkSettings {
  const params = planned.operator.params as ParamsOf<'sink.kafka'>;
  // The job's run folder (.pipewright/<job name>) names the job: another job's sink with the
  // same operator id must not fence this one's transactions.
  const job = checkpoints === undefined ? undefined : basename(dirname(checkpoints.files.root));
  return {
    operatorId: planned.id,
    bootstrapServers: params.bootstrapServers,
    parallelism: planned.parallelism,
    exactlyOnce: (params.deliveryGuarantee ?? 'exactly-once') === 'exactly-once',
    transactionalIdPrefix:
      params.transactionalIdPrefix ?? (job === undefined ? planned.id : `${job}-${planned.id}`),
    transactionTimeoutMs: params.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS,
    firstEpoch: checkpoints?.firstId ?? 1,
  };
}
