// Bytes allocated per call, garbage included, from V8's sampling heap profiler: what a record's
// path allocates is what its scavenges cost, so allocation tests bound it per record.
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes `body` allocates per call once V8 has optimized it (`calls` runs to warm up, then as many sampled). */
export async function bytesPerCall(body: (i: number) => void, calls: number): Promise<number> {
  for (let i = 0; i < calls; i++) body(i);
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 128,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 0; i < calls; i++) body(i);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let total = 0;
    const walk = (node: ProfileNode) => {
      total += node.selfSize;
      for (const child of node.children) walk(child);
    };
    walk(profile.head as ProfileNode);
    return total / calls;
  } finally {
    session.disconnect();
  }
}
