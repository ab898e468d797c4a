// The one message protocol between the designer and the engine host, whatever carries it
// (a MessagePort inside Electron, a WebSocket in the browser form). Types only, no Node API:
// the renderer imports this file. Every request gets exactly one response with the same id;
// events flow from host to client without an id.

import type { InputFileRef } from '../graph/inputFiles.js';
import type { Problem } from '../graph/problem.js';
import { RUN_METHOD_NAMES, type RunEvents, type RunMethods } from './runProtocol.js';

export type * from './runProtocol.js';

/**
 * The most one message to the host may hold (the WebSocket's limit): it bounds what one client
 * can make the host buffer. A job file with inline code is a few hundred kB.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/**
 * The largest job file the designer opens. Its text goes back to the host in one message to be
 * saved or run, as a JSON string whose escapes may make it longer: half the limit leaves room.
 */
export const MAX_JOB_FILE_BYTES = MAX_MESSAGE_BYTES / 2;

/** A job template the start screen offers (one folder of `assets/examples`). */
export interface TemplateInfo {
  /** Folder name, also the id used to open it. */
  readonly name: string;
  /** The job's `name`. */
  readonly title: string;
  readonly description: string;
  /** Absolute path of the template's job file. */
  readonly path: string;
}

export interface DirEntry {
  readonly name: string;
  readonly path: string;
  readonly kind: 'dir' | 'file';
}

export interface HostInfo {
  readonly version: string;
  /** Which transport the host serves; shown in About, never branched on by the renderer's logic. */
  readonly transport: 'websocket' | 'messageport';
  /** The user's home folder. */
  readonly homeDir: string;
  /**
   * The folder the designer was started from: where the open and save dialogs start for a job
   * that has no file yet (a new one, a template).
   */
  readonly startDir: string;
  /** Path separator of the host's file system. */
  readonly sep: '/' | '\\';
  /** A file given on the command line (`npm start -- FILE`, `npm run web -- FILE`). */
  readonly initialFile?: string;
}

export interface OpenedFile {
  readonly path: string;
  readonly text: string;
}

/**
 * A problem the host finds outside the job's text, which the pure validator cannot see: an input
 * file that is not there. The designer lists it with the validator's problems, as a warning.
 */
export interface FileProblem extends Problem {
  readonly severity: 'warning';
  /** The operator whose parameter names the file, that parameter, and its value as checked. */
  readonly operator: string;
  readonly param: string;
  readonly file: string;
}

/** What the inspector's "Test connection" asks about: one operator as the designer has it now. */
export interface ConnectionTestRequest {
  readonly operatorId: string;
  readonly kind: string;
  /** The params as the draft holds them, `${env:NAME}` unresolved: the host resolves them. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The user trusts the job; otherwise a param naming an environment variable is refused. */
  readonly trusted?: boolean;
}

export interface ConnectionTestResult {
  /**
   * 'ok': the server answers and the topic, table or stream is there; 'failed': it does not, or
   * the test could not be made (a missing environment variable, no answer in time); 'none': the
   * kind has no connection test.
   */
  readonly outcome: 'ok' | 'failed' | 'none';
  /** One line for people. */
  readonly message: string;
}

/** Method name -> [params, result]. Adding a method here is how the host's API grows. */
export interface HostMethods extends RunMethods {
  'host.info': [Record<string, never>, HostInfo];
  'templates.list': [Record<string, never>, TemplateInfo[]];
  /** Reads any text file (a job file, a template). Fails with a message naming the path. */
  'file.read': [{ path: string }, OpenedFile];
  /** Writes atomically (temp file + rename), so a failed save never leaves half a file. */
  'file.write': [{ path: string; text: string }, { path: string }];
  'file.list': [{ dir: string }, { dir: string; parent?: string; entries: DirEntry[] }];
  'recent.list': [Record<string, never>, string[]];
  /** Moves a path to the front of the recent list (kept to ten); returns the new list. */
  'recent.add': [{ path: string }, string[]];
  /**
   * Checks the files the job reads (a source's input, see engine/graph/inputFiles.ts), relative
   * to the job file's folder, as the designer's job names them: a problem for each one missing
   * or unreadable. Only the names are sent, never the job's text.
   */
  'job.checkFiles': [{ path: string; inputs: InputFileRef[] }, { problems: FileProblem[] }];
  /**
   * Copies the input files `files` (relative names, inside the folder) from the folder of the
   * job file `from` to that of `to`, making subfolders as needed: a template saved elsewhere
   * takes its data with it. A file already at `to` is kept as it is, never overwritten.
   */
  'job.copyInputs': [{ from: string; to: string; files: string[] }, { copied: string[]; kept: string[] }];
  /** Asks a connector operator's server whether it answers and its target exists; never fails. */
  'connection.test': [ConnectionTestRequest, ConnectionTestResult];
  /**
   * Whether the user trusts the job file at `path` as it is, `text` (docs/security.md): this text
   * of it was trusted or saved in the designer, or a trusted folder holds it.
   */
  'trust.check': [{ path: string; text: string }, { trusted: boolean }];
  /** Records that the user trusts the job file at `path` with this text (an edit by anyone else asks again). */
  'trust.grant': [{ path: string; text: string }, Record<string, never>];
}

export type HostMethod = keyof HostMethods;
export type ParamsOf<M extends HostMethod> = HostMethods[M][0];
export type ResultOf<M extends HostMethod> = HostMethods[M][1];

/** Host -> client notifications. */
export interface HostEvents extends RunEvents {
  /** The host was asked (by a menu, a second `npm start -- FILE`) to open a file. */
  'file.openRequested': { path: string };
}

export type HostEvent = keyof HostEvents;

export interface RequestMessage<M extends HostMethod = HostMethod> {
  readonly type: 'request';
  readonly id: number;
  readonly method: M;
  readonly params: ParamsOf<M>;
}

export interface ResponseMessage {
  readonly type: 'response';
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly message: string };
}

export interface EventMessage<E extends HostEvent = HostEvent> {
  readonly type: 'event';
  readonly event: E;
  readonly data: HostEvents[E];
}

export type ClientMessage = RequestMessage;
export type HostMessage = ResponseMessage | EventMessage;

/** What any transport gives the client: send a message, receive messages. */
export interface MessageChannelLike<In, Out> {
  send(message: Out): void;
  onMessage(listener: (message: In) => void): () => void;
  onClose(listener: (reason: string) => void): () => void;
}

/** Every method once; mapped over HostMethods, so a method added there does not compile until it is here. */
const METHOD_NAMES: { readonly [M in HostMethod]: true } = {
  'host.info': true,
  'templates.list': true,
  'file.read': true,
  'file.write': true,
  'file.list': true,
  'recent.list': true,
  'recent.add': true,
  'job.checkFiles': true,
  'job.copyInputs': true,
  'connection.test': true,
  'trust.check': true,
  'trust.grant': true,
  ...RUN_METHOD_NAMES,
};

export const HOST_METHODS = Object.keys(METHOD_NAMES) as readonly HostMethod[];

/** Checks the envelope of a message from an untrusted peer before the host acts on it. */
export function isRequestMessage(value: unknown): value is RequestMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    m.type === 'request' &&
    Number.isSafeInteger(m.id) &&
    typeof m.method === 'string' &&
    (HOST_METHODS as readonly string[]).includes(m.method) &&
    typeof m.params === 'object' &&
    m.params !== null
  );
}
