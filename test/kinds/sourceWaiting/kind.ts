// The kind module of source.waiting: loading it (loadKindModule) registers the whole kind.
import type { KindModule } from '../../../engine/operators/kindFactory.js';
import { sourceWaitingDescriptor } from './descriptor.js';
import { sourceWaitingFactory } from './waitingSource.js';

export const kind: KindModule = { descriptor: sourceWaitingDescriptor, factory: sourceWaitingFactory };
