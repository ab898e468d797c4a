// Bytes allocated per call, garbage included, from V8's sampling heap profiler: what a record's
// path allocates is what its scavenges cost, so allocation tests bound it per record.
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

/**
 * Bytes `body` allocates per call once V8 has optimized it: `calls` runs to warm up, then the
 * least of `windows` sampled runs of as many. The least, because code not optimized yet (V8
 * compiles on another thread, later on a loaded machine) allocates what optimized code does
 * not, such as a for-of's iteration results, and that is not what the test bounds.
 */
export async function bytesPerCall(body: (i: number) => void, calls: number, windows = 5): Promise<number> {
  for (let i = 0; i < calls; i++) body(i);
  const session = new Session();
  session.connect();
  let least = Number.POSITIVE_INFINITY;
  try {
    for (let w = 0; w < windows; w++) {
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
      least = Math.min(least, total / calls);
    }
    return least;
  } finally {
    session.disconnect();
  }
}
