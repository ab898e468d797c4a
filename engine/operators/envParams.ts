// `${env:NAME}` in an operator's params, replaced by the variable's value just before its kind's
// factory (or "Test connection") sees them. The result lives only in memory: the planned
// operator, and so the job file, checkpoint metadata, metrics and logs, keep the reference as
// written, and a secret in a connection string is never written anywhere by the engine.
import { JobError } from '../graph/jobError.js';
import { ENV_REFERENCE } from '../graph/kinds/connectorParams.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** Where a string sits in the params, as a user names it: "connection", "brokers[1]", "auth.user". */
function paramPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? part : `${text}.${part}`),
    '',
  );
}

function resolveString(
  text: string,
  operatorId: string,
  path: readonly (string | number)[],
  environment: Environment,
): string {
  if (!text.includes('${env:')) return text;
  return text.replace(new RegExp(ENV_REFERENCE.source, 'g'), (_, name: string) => {
    const value = environment[name];
    if (value === undefined) {
      throw new JobError(
        `operator "${operatorId}": param "${paramPath(path)}" names the environment variable ${name}, which is not set`,
        operatorId,
      );
    }
    return value;
  });
}

function resolveValue(
  value: unknown,
  operatorId: string,
  path: (string | number)[],
  environment: Environment,
): unknown {
  if (typeof value === 'string') return resolveString(value, operatorId, path, environment);
  if (Array.isArray(value)) {
    return value.map((item, i) => resolveValue(item, operatorId, [...path, i], environment));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        resolveValue(item, operatorId, [...path, key], environment),
      ]),
    );
  }
  return value;
}

/** Whether any string in the params names an environment variable (the params then need a copy). */
export function hasEnvReference(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${env:');
  if (Array.isArray(value)) return value.some(hasEnvReference);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasEnvReference);
  return false;
}

/**
 * A copy of `params` with every `${env:NAME}` in a string (at any depth) replaced by NAME's value;
 * the params themselves when they name no variable. A variable that is not set is a JobError
 * naming the operator, the param and the variable.
 */
export function resolveEnvParams<T>(
  params: T,
  operatorId: string,
  environment: Environment = process.env,
): T {
  if (!hasEnvReference(params)) return params;
  return resolveValue(params, operatorId, [], environment) as T;
}
