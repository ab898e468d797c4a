// The kind module of source.counter: loading it (loadKindModule) registers the whole kind.
import type { KindModule } from '../../../engine/operators/kindFactory.js';
import { sourceCounterFactory } from './counterSource.js';
import { sourceCounterDescriptor } from './descriptor.js';

export const kind: KindModule = { descriptor: sourceCounterDescriptor, factory: sourceCounterFactory };
