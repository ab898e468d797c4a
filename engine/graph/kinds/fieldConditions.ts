// When a param means something only beside some values of another param: a window's `slideMs`
// only for sliding windows, a source's `maxOutOfOrdernessMs` only once it has a
// `timestampField`. The descriptor says so (KindDesigner.fieldConditions) and the designer's
// inspector leaves such a field out of the form while it does not apply; the validator, not
// this, says what a job may hold. Pure, like every descriptor.
import type { FieldJson } from './paramFields.js';

export interface FieldCondition {
  /** The param the field depends on, e.g. "type". */
  readonly field: string;
  /** The values of `field` the field applies beside; absent: whenever `field` is set at all. */
  readonly oneOf?: readonly FieldJson[];
  /**
   * Whenever the field applies it must be set, though the schema has it optional (it is not
   * needed otherwise): the form marks it required then. The kind's checkParams says so to the
   * validator (a sink.postgres upserting needs its key columns).
   */
  readonly required?: boolean;
}

/** Whether a field under `condition` applies to these params (a field without one always does). */
export function fieldApplies(
  condition: FieldCondition | undefined,
  params: Readonly<Record<string, unknown>>,
): boolean {
  if (condition === undefined) return true;
  const value = params[condition.field];
  if (value === undefined || value === null || value === '') return false;
  return condition.oneOf === undefined || condition.oneOf.includes(value as FieldJson);
}

/** "sliding", "tumbling or sliding", "sum, min or max": the values a condition names, in words. */
export function conditionWords(condition: FieldCondition): string {
  const values = (condition.oneOf ?? []).map(String);
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
