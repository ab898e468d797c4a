// The kind module of sink.collect: loading it (loadKindModule) registers the whole kind.
import type { KindModule } from '../../../engine/operators/kindFactory.js';
import { sinkCollectFactory } from './collectSink.js';
import { sinkCollectDescriptor } from './descriptor.js';

export const kind: KindModule = { descriptor: sinkCollectDescriptor, factory: sinkCollectFactory };
