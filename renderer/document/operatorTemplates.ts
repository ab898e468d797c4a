// What a new operator of each kind starts with: an id base and parameters that validate, so a
// freshly dropped operator shows problems only about its wiring.
import type { OperatorKind } from '../../engine/graph/index.js';
import type { JsonObject } from './jobDraft';

export const ID_BASE: Readonly<Record<OperatorKind, string>> = {
  'source.jsonl': 'source',
  'source.generator': 'generator',
  map: 'map',
  filter: 'filter',
  flatMap: 'flatMap',
  process: 'process',
  window: 'window',
  transaction: 'transaction',
  'sink.jsonl': 'sink',
};

export function defaultParams(kind: OperatorKind): JsonObject {
  switch (kind) {
    case 'source.jsonl':
      return { path: 'input.jsonl' };
    case 'source.generator':
      return { code: 'function generate(i, ctx) {\n  return { id: i };\n}\n', count: 100 };
    case 'map':
      return { code: 'function map(record, ctx) {\n  return record;\n}\n' };
    case 'filter':
      return { code: 'function filter(record, ctx) {\n  return true;\n}\n' };
    case 'flatMap':
      return { code: 'function flatMap(record, ctx) {\n  return [record];\n}\n' };
    case 'process':
      return { code: 'function process(record, ctx) {\n  ctx.emit(record);\n}\n' };
    case 'window':
      return { type: 'tumbling', sizeMs: 1000, aggregate: 'count' };
    case 'transaction':
      return {
        tables: ['rows'],
        code: 'function keys(record) {\n  return [];\n}\n\nfunction transact(record, tx) {\n}\n',
      };
    case 'sink.jsonl':
      return { path: 'output.jsonl' };
  }
}
