// A Flink cluster through its REST API (`pipewright flink --cluster URL`): the runner jar
// uploaded once per build, a job started from it, followed, and stopped with a savepoint. Only
// what the CLI needs, in Flink 2.x's words (docs: Flink's "REST API" page).
import { readFile } from 'node:fs/promises';
import { JobError } from '../graph/jobError.js';

/** How a job stands, as /jobs/:id says it. */
export interface FlinkJobStatus {
  readonly state: string;
  readonly vertices: readonly FlinkVertex[];
}

/** A job vertex: a chain of operators, `A -> B -> C` in its name, run as one task per subtask. */
export interface FlinkVertex {
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly metrics?: {
    readonly 'read-records'?: number;
    readonly 'write-records'?: number;
  };
}

/** A checkpoint as /jobs/:id/checkpoints lists it (Flink's names). */
export interface FlinkCheckpoint {
  readonly id: number;
  readonly status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  readonly is_savepoint?: boolean;
  readonly trigger_timestamp: number;
  readonly end_to_end_duration: number;
  readonly checkpointed_size: number;
  readonly state_size: number;
  readonly processed_data?: number;
  readonly failure_message?: string | null;
}

/** One subtask of a vertex in a checkpoint (/jobs/:id/checkpoints/details/:cid/subtasks/:vid). */
export interface FlinkCheckpointSubtask {
  readonly index: number;
  readonly checkpointed_size?: number;
  readonly state_size?: number;
  readonly checkpoint?: { readonly sync?: number; readonly async?: number };
  readonly alignment?: { readonly duration?: number };
}

export interface VertexSubtaskRecords {
  readonly subtask: number;
  readonly read: number;
  readonly written: number;
}

/** Metric ids per request: a long query string is refused by the REST server's line limit. */
const METRICS_PER_CALL = 50;

export interface FlinkCheckpointCounts {
  readonly completed: number;
  readonly failed: number;
  readonly lastSize?: number;
}

/** The states a job ends in. */
export const ENDED = new Set(['FINISHED', 'FAILED', 'CANCELED']);

export class FlinkRest {
  private readonly base: string;

  constructor(address: string) {
    this.base = address.replace(/\/+$/, '');
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        ...(body instanceof FormData
          ? { body }
          : body === undefined
            ? {}
            : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      // undici says "fetch failed"; the reason is its cause's (a code, or one per address tried).
      const cause = (error as { cause?: { code?: string; errors?: { code?: string }[]; message?: string } })
        .cause;
      const reason = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message;
      throw new JobError(`the Flink cluster at ${this.base} does not answer (${reason})`);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const errors = (json as { errors?: unknown[] } | undefined)?.errors;
      const first =
        Array.isArray(errors) && errors.length > 0 ? firstLine(String(errors[0])) : text.slice(0, 200);
      throw new JobError(`the Flink cluster at ${this.base} refused ${method} ${path}: ${first}`);
    }
    return json;
  }

  /** The cluster's Flink version (GET /config), which also says it answers. */
  async version(): Promise<string> {
    const config = (await this.call('GET', '/config')) as { 'flink-version'?: string };
    return config['flink-version'] ?? 'unknown';
  }

  /** The cluster's savepoint folder, when its configuration names one. */
  async savepointDir(): Promise<string | undefined> {
    const entries = (await this.call('GET', '/jobmanager/config')) as { key: string; value: string }[];
    const keys = ['execution.checkpointing.savepoint-dir', 'state.savepoints.dir'];
    return entries.find((e) => keys.includes(e.key))?.value;
  }

  /** The id of the jar uploaded as `name`, uploading it first when the cluster does not have it. */
  async jar(path: string, name: string): Promise<string> {
    const listed = (await this.call('GET', '/jars')) as { files?: { id: string; name: string }[] };
    const found = listed.files?.find((f) => f.name === name);
    if (found !== undefined) return found.id;
    const form = new FormData();
    form.append('jarfile', new Blob([await readFile(path)], { type: 'application/java-archive' }), name);
    const uploaded = (await this.call('POST', '/jars/upload', form)) as { filename?: string };
    const id = uploaded.filename?.split('/').at(-1);
    if (id === undefined)
      throw new JobError(`the Flink cluster at ${this.base} did not say where the runner jar went`);
    return id;
  }

  /** Starts the jar's main class with these arguments; the job's id. */
  async run(jarId: string, entryClass: string, programArgsList: readonly string[]): Promise<string> {
    let started: { jobid?: string };
    try {
      started = (await this.call('POST', `/jars/${encodeURIComponent(jarId)}/run`, {
        entryClass,
        programArgsList,
      })) as { jobid?: string };
    } catch (error) {
      // The runner's main failed inside the JobManager (the plan refused as the job was built):
      // its own line is the last cause of the trace the cluster sends back.
      const trace = (error as { trace?: string }).trace;
      if (trace?.includes('Caused by:')) throw new JobError(userMessageOf(trace));
      throw error;
    }
    if (started.jobid === undefined) throw new JobError(`the Flink cluster at ${this.base} started no job`);
    return started.jobid;
  }

  async status(jobId: string): Promise<FlinkJobStatus> {
    return (await this.call('GET', `/jobs/${jobId}`)) as FlinkJobStatus;
  }

  async checkpoints(jobId: string): Promise<FlinkCheckpointCounts> {
    const stats = (await this.call('GET', `/jobs/${jobId}/checkpoints`)) as {
      counts?: { completed?: number; failed?: number };
      latest?: { completed?: { checkpointed_size?: number; state_size?: number } | null };
    };
    const last = stats.latest?.completed;
    return {
      completed: stats.counts?.completed ?? 0,
      failed: stats.counts?.failed ?? 0,
      ...(last == null ? {} : { lastSize: last.checkpointed_size ?? last.state_size ?? 0 }),
    };
  }

  /**
   * Values of a vertex's metrics by id (`0.busyTimeMsPerSecond`, `1.bars.numRecordsIn`: subtask,
   * then operator, then metric); ids Flink has not registered yet are left out.
   */
  async vertexMetrics(jobId: string, vertexId: string, ids: readonly string[]): Promise<Map<string, number>> {
    const values = new Map<string, number>();
    for (let i = 0; i < ids.length; i += METRICS_PER_CALL) {
      const get = ids
        .slice(i, i + METRICS_PER_CALL)
        .map(encodeURIComponent)
        .join(',');
      const got = (await this.call('GET', `/jobs/${jobId}/vertices/${vertexId}/metrics?get=${get}`)) as {
        id: string;
        value: string;
      }[];
      for (const { id, value } of got ?? []) {
        const n = Number(value);
        if (Number.isFinite(n)) values.set(id, n);
      }
    }
    return values;
  }

  /**
   * Records each subtask of a vertex read from and wrote to the network: its chain's input and
   * output. Once the job has ended they are exact (the job's own counts), where the metrics of
   * its operators are as last fetched.
   */
  async vertexSubtasks(jobId: string, vertexId: string): Promise<readonly VertexSubtaskRecords[]> {
    const vertex = (await this.call('GET', `/jobs/${jobId}/vertices/${vertexId}`)) as {
      subtasks?: { subtask: number; metrics?: { 'read-records'?: number; 'write-records'?: number } }[];
    };
    return (vertex.subtasks ?? []).map((s) => ({
      subtask: s.subtask,
      read: s.metrics?.['read-records'] ?? 0,
      written: s.metrics?.['write-records'] ?? 0,
    }));
  }

  /** The checkpoints Flink still lists for the job (its history: the latest few), newest first. */
  async checkpointHistory(jobId: string): Promise<readonly FlinkCheckpoint[]> {
    const stats = (await this.call('GET', `/jobs/${jobId}/checkpoints`)) as { history?: FlinkCheckpoint[] };
    return stats.history ?? [];
  }

  /** What each subtask of a vertex put into a checkpoint. */
  async checkpointSubtasks(
    jobId: string,
    checkpointId: number,
    vertexId: string,
  ): Promise<readonly FlinkCheckpointSubtask[]> {
    const details = (await this.call(
      'GET',
      `/jobs/${jobId}/checkpoints/details/${checkpointId}/subtasks/${vertexId}`,
    )) as { subtasks?: FlinkCheckpointSubtask[] };
    return details.subtasks ?? [];
  }

  /** The job's root exception as Flink keeps it (the whole Java stack trace text). */
  async rootException(jobId: string): Promise<string | undefined> {
    const exceptions = (await this.call('GET', `/jobs/${jobId}/exceptions`)) as {
      exceptionHistory?: { entries?: { stacktrace?: string }[] };
      'root-exception'?: string;
    };
    return exceptions.exceptionHistory?.entries?.[0]?.stacktrace ?? exceptions['root-exception'];
  }

  /** Stops the job with a savepoint in `dir`; resolves to the savepoint's path. */
  async stopWithSavepoint(jobId: string, dir: string): Promise<string> {
    // A stop asked while the job's tasks are still being deployed is refused by Flink ("not all
    // required tasks are currently running"): asked again until they run, as a user who pressed
    // Stop at once means it (a minute at most; a job that ends meanwhile ends the wait).
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.triggerStop(jobId, dir);
      } catch (error) {
        const early = /not all required tasks are currently running/i.test((error as Error).message);
        if (!early || attempt >= 120) throw error;
        const { state } = await this.status(jobId);
        if (state !== 'RUNNING' && state !== 'CREATED' && state !== 'INITIALIZING') throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private async triggerStop(jobId: string, dir: string): Promise<string> {
    const trigger = (await this.call('POST', `/jobs/${jobId}/stop`, {
      targetDirectory: dir,
      drain: false,
    })) as {
      'request-id'?: string;
    };
    const request = trigger['request-id'];
    if (request === undefined) throw new JobError(`the Flink cluster at ${this.base} took no savepoint`);
    for (;;) {
      const state = (await this.call('GET', `/jobs/${jobId}/savepoints/${request}`)) as {
        status?: { id?: string };
        operation?: { location?: string; 'failure-cause'?: { 'stack-trace'?: string; class?: string } };
      };
      if (state.status?.id === 'COMPLETED') {
        const location = state.operation?.location;
        if (location !== undefined) return location;
        const cause = state.operation?.['failure-cause'];
        throw new JobError(
          `the savepoint failed: ${firstLine(cause?.['stack-trace'] ?? cause?.class ?? 'no reason given')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async cancel(jobId: string): Promise<void> {
    await this.call('PATCH', `/jobs/${jobId}?mode=cancel`);
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/**
 * The user's one line in a Java stack trace: the runner fails a job with the worker's message
 * as the deepest cause (flink/PROTOCOL.md), so it is the last "Caused by:" (or the first line).
 */
export function userMessageOf(stacktrace: string): string {
  const causes = [...stacktrace.matchAll(/^Caused by: [\w.$]+: (.*)$/gm)];
  const last = causes.at(-1)?.[1] ?? stacktrace.split('\n')[0]!.replace(/^[\w.$]+: /, '');
  return last.trim();
}
