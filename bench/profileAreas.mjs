// Where a run's CPU went, by area of the engine: the CPU profile summary each bench row carries
// with --profile. A run writes one V8 CPU profile per thread (`node --cpu-prof`: the main thread
// and each worker); each sample's time goes to the area of the function on top of its stack.
// Functions without a file (V8's builtins such as JSON.parse, native bindings such as
// postMessage) and Node's own library count for the nearest caller that has one, so the
// source's JSON.parse is the source's and the link's postMessage is the transport's; a stack of
// Node's frames alone (a stream writing, a timer) is "Node". Idle time is left out: the shares are
// of the time the threads were busy. Profiles sample wall time, so on a loaded machine a thread
// waiting for a core is counted in what it was running: compare shares, not seconds.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The areas, in the order a summary shows them. */
export const AREAS = [
  'source',
  'state',
  'user code',
  'sink',
  'transactions',
  'windows',
  'record copies',
  'thread transport',
  'runtime',
  'script',
  'LevelDB',
  'connector clients',
  'Node',
  'GC',
  'module loading',
  'other',
];

/** Rules by a frame's file as `pathOf` gives it, first match wins. */
const PATH_AREAS = [
  [/^engine\/runtime\/(batchCodec|threadLink|threadChannel|jsonTextEnvelope)\./, 'thread transport'],
  [/^engine\/runtime\/recordCopy\./, 'record copies'],
  [/^engine\/operators\/transaction(Logic\.|\/)/, 'transactions'],
  [/^engine\/operators\/window(Logic\.|\/)/, 'windows'],
  [/^engine\/operators\/(.*\/)?source[A-Z]\w*\./, 'source'],
  [/^engine\/operators\/(kafka\/source|postgres\/source|nexmark)\//, 'source'],
  [/^engine\/operators\/(.*\/)?sink[A-Z]\w*\./, 'sink'],
  [/^engine\/operators\/(kafka\/sink|postgres\/sink)\//, 'sink'],
  [/^engine\/operators\/redis\/redis(Sink|Committer)/, 'sink'],
  [/^engine\/state\//, 'state'],
  // The compartment around user code and its calls: the cost of running it sandboxed.
  [/^engine\/sandbox\//, 'user code'],
  [/^ses\//, 'user code'],
  [/^engine\//, 'runtime'],
  [/^baselines\//, 'script'],
  [/^classic-level\//, 'LevelDB'],
  [/^(pg|pg-[\w-]+|pgpass|@platformatic\/[\w-]+|redis|@redis\/[\w-]+)\//, 'connector clients'],
];

/** The area of a profile's call frame, or undefined for one without a file (its caller's). */
export function areaOf(callFrame) {
  const { functionName, url } = callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'other';
  if (url === '') return undefined;
  // User code is compiled from the job's text under a URL of its own (engine/sandbox/userCode.ts).
  if (url.startsWith('pipewright:')) return 'user code';
  if (url.startsWith('node:internal/modules') || url.startsWith('node:internal/bootstrap'))
    return 'module loading';
  if (url.startsWith('node:')) return undefined;
  const path = pathOf(url);
  for (const [pattern, area] of PATH_AREAS) if (pattern.test(path)) return area;
  return 'other';
}

/**
 * A frame's file as the rules read it: a package's from its name on (whose own files may sit in
 * a dist/ of theirs), else ours from after the last dist/ or bench/.
 */
function pathOf(url) {
  const file = url.replace(/^file:\/\//, '');
  const at = file.lastIndexOf('/node_modules/');
  if (at >= 0) return file.slice(at + '/node_modules/'.length);
  return file.replace(/^.*\/(dist|bench)\//, '');
}

/** `name file:line` of a call frame, the file as areaOf reads it. */
function frameName(callFrame) {
  const path = pathOf(callFrame.url);
  return `${callFrame.functionName || '(anonymous)'}${path ? ` ${path}:${callFrame.lineNumber + 1}` : ''}`;
}

/**
 * Sums the profiles of one run: busy milliseconds, milliseconds per area, and the functions with
 * the most self time (`top` of them).
 */
export function profileAreas(profiles, { top = 5 } = {}) {
  const areas = new Map(AREAS.map((a) => [a, 0]));
  const functions = new Map();
  let busyMs = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    // Per node: the area of the nearest frame up its stack that has one, and whether Node's own
    // library is on the way (a stack of only Node's frames and builtins is Node's: streams, timers).
    const upOfNode = new Map();
    const up = (id) => {
      let found = upOfNode.get(id);
      if (found !== undefined) return found;
      const callFrame = byId.get(id).callFrame;
      const area = areaOf(callFrame);
      if (area !== undefined) found = [area, false];
      else {
        const above = parent.get(id);
        const [upper, sawNode] = above === undefined ? [undefined, false] : up(above);
        found = [upper, sawNode || callFrame.url.startsWith('node:')];
      }
      upOfNode.set(id, found);
      return found;
    };
    const resolve = (id) => {
      const [area, sawNode] = up(id);
      return area ?? (sawNode ? 'Node' : 'other');
    };
    const { samples, timeDeltas } = profile;
    for (let i = 0; i < samples.length; i++) {
      // A sample's time is the interval until the next one (the last one's: the mean interval).
      const ms = ((timeDeltas[i + 1] ?? (profile.endTime - profile.startTime) / samples.length) || 0) / 1000;
      const node = byId.get(samples[i]);
      if (node.callFrame.functionName === '(idle)') continue;
      busyMs += ms;
      const area = resolve(samples[i]);
      areas.set(area, areas.get(area) + ms);
      const name = frameName(node.callFrame);
      functions.set(name, (functions.get(name) ?? 0) + ms);
    }
  }
  return {
    busyMs,
    areas: AREAS.map((area) => ({ area, ms: areas.get(area) })),
    top: [...functions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms })),
  };
}

/** Reads every profile a run wrote into `dir` and sums them (profileAreas). */
export function profileDirAreas(dir, options) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  return profileAreas(
    files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8'))),
    options,
  );
}

/**
 * The summary of the rows that carry one (`row.profile`, from profileAreas) as Markdown lines: per
 * row its busy CPU seconds and each area's share, and its three hottest functions. Areas no row
 * spent 0.5% in are left out. No lines when no row has a profile.
 */
export function profileTable(rows) {
  const profiled = rows.filter((r) => r.profile !== undefined && r.profile.busyMs > 0);
  if (profiled.length === 0) return [];
  const share = (r, area) => r.profile.areas.find((a) => a.area === area).ms / r.profile.busyMs;
  const shown = AREAS.filter((area) => profiled.some((r) => share(r, area) >= 0.005));
  const pct = (x) => (x >= 0.0005 ? `${(100 * x).toFixed(1)}%` : '');
  const lines = [
    '**CPU profile** (one more run of each row after the timed ones, `node --cpu-prof`, every thread; ' +
      "the engine's rows from dist/engine's modules rather than the bundle, so that frames name their " +
      'files; `bench/profileAreas.mjs` gives each busy sample to the area of the function on top of the ' +
      "stack, a builtin or a frame of Node's library to its caller; profiles sample wall time, so on a loaded machine read the shares, not the seconds):",
    '',
    `| row | busy s | ${shown.join(' | ')} | hottest functions (self s) |`,
    `| --- | ---: | ${shown.map(() => '---:').join(' | ')} | --- |`,
  ];
  for (const r of profiled) {
    const top = r.profile.top
      .slice(0, 3)
      .map((f) => `\`${f.name}\` ${(f.ms / 1000).toFixed(2)}`)
      .join('; ');
    lines.push(
      `| ${r.label} | ${(r.profile.busyMs / 1000).toFixed(2)} | ${shown.map((a) => pct(share(r, a))).join(' | ')} | ${top} |`,
    );
  }
  lines.push('');
  return lines;
}
