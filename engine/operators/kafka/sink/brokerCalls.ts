// Every call sink.kafka makes to a broker, through ServerRetry (an outage is waited out, with the
// status saying what for, up to retryTimeoutMs), and an error waiting cannot mend as one line
// naming the operator, the server, what it was doing and the broker's answer.
import { JobError } from '../../../graph/jobError.js';
import { ServerRetry } from '../../connectors/serverRetry.js';
import { kafkaServerName } from '../kafkaClientOptions.js';
import { describeKafkaError, isTransientKafkaError } from '../kafkaErrors.js';

export class BrokerCalls {
  private readonly retry: ServerRetry;
  private readonly server: string;

  constructor(
    private readonly operatorId: string,
    bootstrapServers: string,
    retryTimeoutMs: number | undefined,
    reportWait: ((message: string | undefined) => void) | undefined,
  ) {
    this.server = kafkaServerName(bootstrapServers);
    this.retry = new ServerRetry({
      operatorId,
      server: this.server,
      timeoutMs: retryTimeoutMs,
      reportWait,
      isTransient: isTransientKafkaError,
    });
  }

  /** `call`, retried while the broker is away; `action` says what it does ("writing to topic "t""). */
  async run<T>(action: string, call: () => Promise<T>): Promise<T> {
    try {
      return await this.retry.run(action, call);
    } catch (error) {
      if (error instanceof JobError) throw error;
      throw new JobError(
        `operator "${this.operatorId}": ${this.server} refused ${action}: ${describeKafkaError(error)}`,
        this.operatorId,
      );
    }
  }
}
