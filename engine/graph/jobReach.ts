// What a job reaches beyond its own records: the files it reads and writes, the servers it
// connects to and the environment variables it reads. A job file is data people download and
// open, so these are what trusting one grants (docs/security.md): the designer's "Trust this
// job…" lists them, `pipewright run` names them when it refuses an untrusted job, and the engine
// confines an untrusted run by them. Read from the kinds' descriptors (fileParams,
// designer.connectionParams) and from every string param (`${env:NAME}` is resolved in any of
// them, code included). Pure, and lenient: the designer asks about drafts of any shape.
import { ENV_REFERENCE } from './kinds/connectorParams.js';
import { findKind } from './kinds/kindRegistry.js';
import { serverAddress } from './serverAddress.js';

export interface FileUse {
  readonly operator: string;
  readonly param: string;
  /** As the job file writes it: relative paths resolve against the job file's folder. */
  readonly path: string;
  readonly access: 'read' | 'write';
}

export interface ServerUse {
  readonly operator: string;
  readonly param: string;
  /** Host and port only (serverAddress); undefined when the param gives none it can show. */
  readonly address: string | undefined;
}

export interface EnvUse {
  readonly operator: string;
  /** Where in the params: "connection", "auth.password", "brokers[1]". */
  readonly param: string;
  readonly variable: string;
}

export interface JobReach {
  readonly files: readonly FileUse[];
  readonly servers: readonly ServerUse[];
  readonly env: readonly EnvUse[];
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function joinPath(base: string, part: string | number): string {
  if (typeof part === 'number') return `${base}[${part}]`;
  return base === '' ? part : `${base}.${part}`;
}

/** Every `${env:NAME}` in the strings of `value`, at any depth (iteratively: params may nest deep). */
function envUses(operator: string, params: unknown): EnvUse[] {
  const found: EnvUse[] = [];
  const stack: { value: unknown; path: string }[] = [{ value: params, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      for (const match of value.matchAll(new RegExp(ENV_REFERENCE.source, 'g')))
        found.push({ operator, param: path, variable: match[1]! });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: joinPath(path, i) });
    } else if (isObject(value)) {
      for (const key of Object.keys(value).reverse())
        stack.push({ value: value[key], path: joinPath(path, key) });
    }
  }
  return found;
}

/** What the operators reach, in their order (operators of an unknown kind reach only what their env references say). */
export function jobReach(operators: readonly unknown[]): JobReach {
  const files: FileUse[] = [];
  const servers: ServerUse[] = [];
  const env: EnvUse[] = [];
  for (const op of operators) {
    if (!isObject(op) || typeof op.id !== 'string' || !isObject(op.params)) continue;
    const { id, params } = op;
    const kind = typeof op.kind === 'string' ? findKind(op.kind) : undefined;
    for (const [param, access] of Object.entries(kind?.fileParams ?? {})) {
      const path = params[param];
      if (typeof path === 'string' && path !== '') files.push({ operator: id, param, path, access });
    }
    for (const param of kind?.designer.connectionParams ?? []) {
      const value = params[param];
      if (typeof value === 'string' && value.trim() !== '')
        servers.push({ operator: id, param, address: serverAddress(value) });
    }
    env.push(...envUses(id, params));
  }
  return { files, servers, env };
}
