// The Node side of a kind: what makes its operators run. A kind is a pure descriptor (engine/graph,
// what validation and the designer read) plus one of these; a *kind module* exports both, so that
// loading it by specifier registers the whole kind (see kindFactories.ts), in any thread.
import type { KindDescriptor } from '../graph/kinds/kindDescriptor.js';
import type { PlannedOperator } from '../graph/plan.js';
import type { CheckpointFiles } from '../runtime/checkpointFiles.js';
import type { EdgeRouter } from '../runtime/edgeRouter.js';
import type { OperatorLogic, SubtaskEnvironment } from '../runtime/operatorLogic.js';
import type { SinkCommitter, SinkWriter } from '../runtime/sink.js';
import type { Source } from '../runtime/source.js';

export type LogicFactory = (env: SubtaskEnvironment) => OperatorLogic;

/** Checkpointing, as the factories need it: where files go and the next checkpoint's id. */
export interface CheckpointSetup {
  readonly files: CheckpointFiles;
  readonly firstId: number;
}

/** What a factory is given, once per operator and run. */
export interface OperatorContext {
  readonly planned: PlannedOperator;
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /** The job's name: with jobDir, what tells two jobs of one folder apart (server-side names). */
  readonly jobName: string;
  /** Undefined when the run takes no checkpoints. */
  readonly checkpoints: CheckpointSetup | undefined;
}

/** A sink operator's two halves: a writer per subtask, one committer for them all. */
export interface SinkParts {
  createWriter(env: SubtaskEnvironment): SinkWriter;
  readonly committer: SinkCommitter;
}

/** What the inspector's "Test connection" says: whether the server answers and the target exists. */
export interface ConnectionCheck {
  readonly ok: boolean;
  /** One line, e.g. 'Kafka at localhost:9092 answers; topic "events" has 3 partitions'. */
  readonly message: string;
}

interface FactoryBase {
  /**
   * Connectors: asks the server whether it answers and the topic, table or stream exists, with
   * the operator's params (`${env:NAME}` already resolved). Never throws: a failure is `ok: false`.
   */
  testConnection?(params: Readonly<Record<string, unknown>>, operatorId: string): Promise<ConnectionCheck>;
}

export type KindFactory =
  | (FactoryBase & { readonly role: 'source'; createSource(context: OperatorContext): Source<unknown> })
  | (FactoryBase & {
      readonly role: 'sink';
      createSink(context: OperatorContext): SinkParts;
      /**
       * Its writers write each record as JSON.stringify of its value: a record from another
       * thread may come as that text (JsonTextEnvelope), not decoded to be encoded again.
       */
      readonly writesJsonText?: boolean;
    })
  /**
   * Transforms: the logic of each subtask, as it is (user functions); an operator that places its
   * records itself (a transaction) also makes the router each producer into it uses.
   */
  | (FactoryBase & {
      readonly role: 'transform';
      createLogic(context: OperatorContext): LogicFactory;
      createRouter?(context: OperatorContext): (maxParallelism: number) => EdgeRouter;
    });

/** What a kind module exports (as `kind`): the kind, whole. */
export interface KindModule {
  readonly descriptor: KindDescriptor;
  readonly factory: KindFactory;
}
