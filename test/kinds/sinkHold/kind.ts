// The kind module of sink.hold: loading it (loadKindModule) registers the whole kind.
import type { KindModule } from '../../../engine/operators/kindFactory.js';
import { sinkHoldDescriptor } from './descriptor.js';
import { sinkHoldFactory } from './holdSink.js';

export const kind: KindModule = { descriptor: sinkHoldDescriptor, factory: sinkHoldFactory };
