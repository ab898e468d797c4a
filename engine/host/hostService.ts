// The engine as a service to the designer: one row per protocol method, each with the check of
// its params, because they come from a peer the host does not trust. The run and debug rows are
// run/runService.ts's; the transports and the connection code do not change for them.
import os from 'node:os';
import { sep } from 'node:path';
import { checkInputFiles } from '../deploy/inputFileCheck.js';
import type { InputFileRef } from '../graph/index.js';
import type {
  EventMessage,
  HostEvent,
  HostEvents,
  HostInfo,
  HostMethod,
  ParamsOf,
  ResultOf,
} from '../protocol/protocol.js';
import { testConnection } from './connectionTest.js';
import { listFolder, readTextFile, writeTextFileAtomic } from './hostFiles.js';
import { copyInputFiles } from './inputFileCopy.js';
import { RecentFiles } from './recentFiles.js';
import { createThreadedRunService } from './run/runThread.js';
import { listTemplates } from './templates.js';
import { TrustedJobs } from './trustedJobs.js';

export interface MethodSpec<M extends HostMethod> {
  /** Checks the untrusted params and returns them typed; throws saying which one is wrong. */
  params(raw: Readonly<Record<string, unknown>>): ParamsOf<M>;
  run(params: ParamsOf<M>): Promise<ResultOf<M>>;
}

/** Mapped over HostMethods, so a method added to the protocol does not compile until it has a row here. */
export type MethodTable = { readonly [M in HostMethod]: MethodSpec<M> };

export type HostEventListener = (message: EventMessage) => void;

export interface HostService {
  readonly methods: MethodTable;
  /** Sends an event to every connected client. */
  emit<E extends HostEvent>(event: E, data: HostEvents[E]): void;
  subscribe(listener: HostEventListener): () => void;
  /** Stops a run cleanly and lets go of its stores and temporary folders. */
  close(): Promise<void>;
}

export interface HostServiceOptions {
  readonly transport: HostInfo['transport'];
  readonly version: string;
  /** Where the recent list and the trusted jobs live (see deploy/dataDir.ts). */
  readonly dataDir: string;
  /** assets/examples: one template per folder. */
  readonly examplesDir: string;
  /** A file named on the command line; absolute. */
  readonly initialFile?: string;
  /**
   * The folder the designer was started from (HostInfo.startDir): the user's folder when npm
   * started it (INIT_CWD), else the current one.
   */
  readonly startDir?: string;
  /**
   * Where runs keep their state and checkpoints, one folder per job file: the desktop app's
   * `DATA/runs`. Without it they go beside the job file, as the CLI's do.
   */
  readonly runsDir?: string;
  /** Told after every change of the recent list, e.g. so the desktop shell can rebuild Open Recent. */
  readonly onRecentChanged?: (list: readonly string[]) => void;
}

function noParams(): Record<string, never> {
  return {};
}

function connectionTestParams(raw: Readonly<Record<string, unknown>>): ParamsOf<'connection.test'> {
  const { operatorId, kind } = stringParams('connection.test', 'operatorId', 'kind')(raw);
  const params = raw.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new Error('connection.test: params.params must be an object');
  if (raw.trusted !== undefined && typeof raw.trusted !== 'boolean')
    throw new Error('connection.test: params.trusted must be true or false');
  return {
    operatorId,
    kind,
    params: params as Record<string, unknown>,
    ...(raw.trusted === true ? { trusted: true } : {}),
  };
}

/** More input files than any job names; bounds what a peer can make the host look at. */
const MAX_INPUTS = 10_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkFilesParams(raw: Readonly<Record<string, unknown>>): ParamsOf<'job.checkFiles'> {
  const { path } = stringParams('job.checkFiles', 'path')(raw);
  const inputs = raw.inputs;
  if (!Array.isArray(inputs) || inputs.length > MAX_INPUTS)
    throw new Error(`job.checkFiles: params.inputs must be an array of at most ${MAX_INPUTS} input files`);
  const checked = inputs.map((input: unknown, k): InputFileRef => {
    const ok =
      isRecord(input) &&
      typeof input.operator === 'string' &&
      typeof input.param === 'string' &&
      typeof input.file === 'string' &&
      Number.isSafeInteger(input.index) &&
      (input.index as number) >= 0;
    if (!ok)
      throw new Error(
        `job.checkFiles: params.inputs[${k}] must be { operator, index, param, file } (strings, and a whole number)`,
      );
    const { operator, index, param, file } = input as unknown as InputFileRef;
    return { operator, index, param, file };
  });
  return { path, inputs: checked };
}

function copyInputsParams(raw: Readonly<Record<string, unknown>>): ParamsOf<'job.copyInputs'> {
  const { from, to } = stringParams('job.copyInputs', 'from', 'to')(raw);
  const files = raw.files;
  if (!Array.isArray(files) || files.length > MAX_INPUTS || !files.every((f) => typeof f === 'string'))
    throw new Error(`job.copyInputs: params.files must be an array of at most ${MAX_INPUTS} strings`);
  return { from, to, files };
}

function stringParams<K extends string>(method: HostMethod, ...keys: K[]) {
  return (raw: Readonly<Record<string, unknown>>): Record<K, string> => {
    const params = {} as Record<K, string>;
    for (const key of keys) {
      const value = raw[key];
      if (typeof value !== 'string') throw new Error(`${method}: params.${key} must be a string`);
      params[key] = value;
    }
    return params;
  };
}

export function createHostService(options: HostServiceOptions): HostService {
  const recent = new RecentFiles(options.dataDir);
  const trust = new TrustedJobs(options.dataDir);
  const listeners = new Set<HostEventListener>();
  const info: HostInfo = {
    version: options.version,
    transport: options.transport,
    homeDir: os.homedir(),
    startDir: options.startDir ?? process.env.INIT_CWD ?? process.cwd(),
    sep: sep === '\\' ? '\\' : '/',
    ...(options.initialFile === undefined ? {} : { initialFile: options.initialFile }),
  };

  function emit<E extends HostEvent>(event: E, data: HostEvents[E]): void {
    const message = { type: 'event', event, data } as EventMessage;
    for (const listener of listeners) listener(message);
  }
  // Every run event is a host event: HostEvents extends RunEvents.
  const runs = createThreadedRunService(
    (event, data) => emit(event, data as HostEvents[typeof event]),
    options.runsDir,
  );

  const methods: MethodTable = {
    ...runs.methods,
    'host.info': { params: noParams, run: async () => info },
    'templates.list': { params: noParams, run: () => listTemplates(options.examplesDir) },
    'file.read': { params: stringParams('file.read', 'path'), run: ({ path }) => readTextFile(path) },
    'file.write': {
      params: stringParams('file.write', 'path', 'text'),
      run: ({ path, text }) => writeTextFileAtomic(path, text),
    },
    'file.list': { params: stringParams('file.list', 'dir'), run: ({ dir }) => listFolder(dir) },
    'recent.list': { params: noParams, run: () => recent.list() },
    'recent.add': {
      params: stringParams('recent.add', 'path'),
      run: async ({ path }) => {
        const list = await recent.add(path);
        options.onRecentChanged?.(list);
        return list;
      },
    },
    'job.checkFiles': {
      params: checkFilesParams,
      run: async ({ path, inputs }) => ({ problems: await checkInputFiles(path, inputs) }),
    },
    'job.copyInputs': {
      params: copyInputsParams,
      run: ({ from, to, files }) => copyInputFiles(from, to, files),
    },
    'connection.test': { params: connectionTestParams, run: (request) => testConnection(request) },
    'trust.check': {
      params: stringParams('trust.check', 'path', 'text'),
      run: ({ path, text }) => trust.check(path, text),
    },
    'trust.grant': {
      params: stringParams('trust.grant', 'path', 'text'),
      run: ({ path, text }) => trust.grant(path, text),
    },
  };

  return {
    methods,
    emit,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => runs.close(),
  };
}
