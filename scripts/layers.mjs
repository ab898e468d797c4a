// Which code may import which: the one table of the layers, from which the noRestrictedImports
// overrides of biome.json are generated. Biome keeps only the last override that sets a rule for
// a file (it does not merge their options), so every folder's override must repeat each
// restriction that also applies to it: written by hand, that was one long, near-identical block
// per folder. Here each restriction is said once, and
//
//   node scripts/layers.mjs --write   regenerates biome.json's import overrides from the table;
//   node scripts/layers.mjs --check   says whether biome.json is what the table generates.
//
// test/engineLayering.test.ts fails when biome.json is not, and lints probe files against it to
// show each boundary refusing a back import. Code not in a layer (test/, e2e/, bench/, scripts/, and
// every *.test.ts) may import anything, except that engine tests too stay away from the UI.
//
// A row of LAYERS:
//   layer       its name; an engine layer's is its folder's (the import patterns match that name).
//   folders     the folders it holds, from the repository root.
//   within      the layer a row is part of: it has that layer's restrictions, though not its
//               `packages` (Biome needs the row after its layer's, so the table lists it after).
//   mayImport   for an engine layer: the engine layers it may import; it is refused the others.
//   message     what Biome says when an engine layer imports a layer it may not.
//   pure        no Node API and no native module: the renderer loads the layer in the browser.
//   packages    which groups of PACKAGES it may import (default none: every group not named is
//               refused), or 'any'.
//   refuse      restrictions of its own, as Biome takes them: { group: [patterns], message }.
//   tests       the test files left out of its rules (default: *.test.ts); [] keeps them in.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

/** Node's own modules, by every name an import may give them (subpaths included, as written). */
const NODE_API = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'crypto',
  'child_process',
  'worker_threads',
  'util',
  'events',
  'stream',
  'stream/*',
  'url',
  'http',
  'https',
  'net',
  'readline',
  'zlib',
  'buffer',
  'module',
];

/** Packages that run only in Node: a native module (LevelDB, the SES lockdown) or a socket server. */
const NODE_ONLY = ['ws', 'classic-level', 'ses'];

/** The libraries of the designer's views and stores. */
const UI_LIBRARIES = [
  'react',
  'react-dom',
  '@xyflow/*',
  'zustand',
  'zundo',
  'codemirror',
  '@codemirror/*',
  'uplot',
];

/**
 * Third-party packages that only the layers naming their group in `packages` may import; any
 * package not here (zod, acorn, @dagrejs/dagre, ...) every layer may.
 */
export const PACKAGES = {
  connectorClients: {
    packages: ['pg', 'pg-logical-replication', 'redis', '@platformatic/kafka'],
    message:
      "Only the connectors (engine/operators/kafka, engine/operators/postgres, engine/operators/redis) import their client libraries: engine/operators/kindFactories.ts loads a connector's folder when a job names its kind, and an import from anywhere else would load the clients (over a second) at every CLI start and in every worker thread.",
  },
  ui: {
    packages: UI_LIBRARIES,
    message:
      "React and the UI libraries are for the renderer's views and stores: renderer/document is the job document model, plain data and functions (tests run it in Node), and imports none of them.",
  },
};

/** The engine never reaches up into the UI: every engine file, tests included, is refused it. */
const ENGINE_UI = {
  group: ['**/renderer/**', '**/electron/**', 'electron', ...UI_LIBRARIES],
  message: 'engine/ never imports the UI or Electron: the arrows point renderer -> engine.',
};

const LAYERING = 'Layering: README.md, Layout.';

export const LAYERS = [
  {
    layer: 'engine',
    folders: ['engine'],
    tests: [],
    packages: 'any',
    refuse: [ENGINE_UI],
  },
  {
    layer: 'graph',
    folders: ['engine/graph'],
    within: 'engine',
    pure: true,
    mayImport: [],
    message: `engine/graph is the bottom of the engine (the job model the renderer imports): it imports no other engine folder. ${LAYERING}`,
  },
  {
    layer: 'metrics',
    folders: ['engine/metrics'],
    within: 'engine',
    pure: true,
    mayImport: [],
    message: `engine/metrics is the bottom of the engine (counters and their types, which the renderer sees): it imports no other engine folder. ${LAYERING}`,
  },
  {
    layer: 'protocol',
    folders: ['engine/protocol'],
    within: 'engine',
    pure: true,
    mayImport: ['graph', 'metrics'],
    message: `engine/protocol is the host protocol's types (the renderer imports them): it may import only engine/graph and engine/metrics. ${LAYERING}`,
  },
  {
    layer: 'sandbox',
    folders: ['engine/sandbox'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol'],
    message: `engine/sandbox sits below state: it may import only graph, metrics and protocol. ${LAYERING}`,
  },
  {
    layer: 'state',
    folders: ['engine/state'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol', 'sandbox'],
    message: `engine/state sits below runtime: it may import only graph, metrics, protocol and sandbox. ${LAYERING}`,
  },
  {
    layer: 'runtime',
    folders: ['engine/runtime'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol', 'sandbox', 'state'],
    message: `engine/runtime sits below checkpoint and operators: it declares the interfaces they meet through and imports neither (only graph, metrics, protocol, sandbox, state). ${LAYERING}`,
  },
  {
    layer: 'checkpoint',
    folders: ['engine/checkpoint'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol', 'sandbox', 'state', 'runtime'],
    message: `engine/checkpoint never imports engine/operators (they meet through interfaces in engine/runtime) nor the folders above it (deploy, debug, host, cli). ${LAYERING}`,
  },
  {
    layer: 'operators',
    folders: ['engine/operators'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol', 'sandbox', 'state', 'runtime'],
    message: `engine/operators never imports engine/checkpoint (they meet through interfaces in engine/runtime) nor the folders above it (deploy, debug, host, cli). ${LAYERING}`,
  },
  {
    // The folders engine/operators/kindFactories.ts loads on demand, by import().
    layer: 'connectors',
    folders: ['engine/operators/kafka', 'engine/operators/postgres', 'engine/operators/redis'],
    within: 'operators',
    packages: ['connectorClients'],
  },
  {
    layer: 'deploy',
    folders: ['engine/deploy'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol', 'sandbox', 'state', 'runtime', 'checkpoint', 'operators'],
    message: `engine/deploy is the composition root (a plan in, a running job out): debug, host and cli use it, it never imports them. ${LAYERING}`,
  },
  {
    layer: 'debug',
    folders: ['engine/debug'],
    within: 'engine',
    mayImport: [
      'graph',
      'metrics',
      'protocol',
      'sandbox',
      'state',
      'runtime',
      'checkpoint',
      'operators',
      'deploy',
    ],
    message: `engine/debug sits below host: it speaks the host's types through engine/protocol and never imports engine/host or engine/cli. ${LAYERING}`,
  },
  {
    layer: 'host',
    folders: ['engine/host'],
    within: 'engine',
    mayImport: [
      'graph',
      'metrics',
      'protocol',
      'sandbox',
      'state',
      'runtime',
      'checkpoint',
      'operators',
      'deploy',
      'debug',
    ],
    message: `engine/host and engine/cli are separate tops: the host never imports the CLI. ${LAYERING}`,
  },
  {
    layer: 'cli',
    folders: ['engine/cli'],
    within: 'engine',
    mayImport: [
      'graph',
      'metrics',
      'protocol',
      'sandbox',
      'state',
      'runtime',
      'checkpoint',
      'operators',
      'deploy',
    ],
    message: `engine/cli runs a job through engine/deploy: it never imports engine/host or engine/debug. ${LAYERING}`,
  },
  {
    // A top of its own, beside cli and host: a separate program (one process per Flink subtask,
    // bundled alone into dist/flink), which runs operators' logic but no job of the engine's.
    layer: 'flink',
    folders: ['engine/flink'],
    within: 'engine',
    mayImport: ['graph', 'metrics', 'protocol', 'sandbox', 'state', 'runtime', 'operators'],
    message: `engine/flink is the Flink runner's Node worker: it runs an operator's logic from engine/operators over a pipe, never through engine/deploy, and no engine folder imports it. ${LAYERING}`,
  },
  {
    layer: 'renderer',
    folders: ['renderer'],
    tests: ['*.test.ts', '*.test.tsx'],
    packages: ['ui'],
    refuse: [
      {
        group: [...NODE_API, ...NODE_ONLY, 'electron'],
        message:
          'renderer/ runs in a browser: no Node module, no Electron (the preload hands it a typed API).',
      },
      {
        group: [
          '**/engine/*',
          '**/engine/**',
          '!**/engine/graph/index.js',
          '!**/engine/protocol/protocol.js',
          '!**/engine/host/desktopApi.js',
        ],
        message:
          'renderer/ may import only engine/graph (through its index) and the host protocol types: the runtime, state and CLI are Node-only.',
      },
    ],
  },
  {
    // The job document model: no UI library (PACKAGES.ui is not among its packages).
    layer: 'renderer/document',
    folders: ['renderer/document'],
    within: 'renderer',
    tests: ['*.test.ts', '*.test.tsx'],
  },
  {
    layer: 'electron',
    folders: ['electron'],
    tests: [],
    refuse: [
      {
        group: ['**/renderer/**', ...UI_LIBRARIES],
        message: 'electron/ is the thin shell: it never imports the renderer.',
      },
      {
        group: [
          '**/engine/*',
          '**/engine/**',
          '!**/engine/host/desktopApi.js',
          '!**/engine/protocol/protocol.js',
          '!**/engine/host/staticFiles.js',
          '!**/engine/host/contentSecurityPolicy.js',
          '!**/engine/host/shellMessages.js',
        ],
        message:
          "electron/ holds no engine logic: it starts the host as a utility process and talks to it by messages (it may share the host's message types, the page's CSP and the URL-to-file mapping).",
      },
    ],
  },
];

// --------------------------------------------------------------------------------- generation

/**
 * The patterns Biome needs for one table entry. A package name also stands for its subpaths
 * ("react-dom" for "react-dom/client"), "@scope/*" for all of the scope; folder globs
 * ("**\/state/**"), exceptions ("!...") and Node's module names are taken as written.
 */
function patterns(entry) {
  if (/^[!*.]/.test(entry) || NODE_API.includes(entry)) return [entry];
  if (entry.endsWith('/*')) return [`${entry}*`];
  return [entry, `${entry}/**`];
}

function group(entries, message) {
  return { group: entries.flatMap(patterns), message };
}

/** A row's own restrictions (not its packages'), then those of the layers it is within. */
function restrictions(row, byName) {
  const own = [];
  if (row.pure) {
    own.push(
      group(
        [...NODE_API, ...NODE_ONLY],
        `${row.folders[0]} is pure, the renderer imports its types: no Node API, no native module.`,
      ),
    );
  }
  if (row.mayImport !== undefined) {
    const above = LAYERS.filter(
      (other) => other.mayImport !== undefined && other !== row && !row.mayImport.includes(other.layer),
    );
    // An import names a layer by its folder, relatively ("../state/x.js") or not.
    own.push({ group: above.map((other) => `**/${other.layer}/**`), message: row.message });
  }
  for (const refusal of row.refuse ?? []) own.push(group(refusal.group, refusal.message));
  return row.within === undefined ? own : [...own, ...restrictions(byName.get(row.within), byName)];
}

/**
 * Each pattern once per override: an import two groups refuse would be reported twice, so a
 * pattern an earlier group holds is left out of the later ones (and a group left empty, out).
 */
function withoutRepeats(groups) {
  const seen = new Set();
  const kept = [];
  for (const { group: entries, message } of groups) {
    const fresh = entries.filter((entry) => entry.startsWith('!') || !seen.has(entry));
    for (const entry of fresh) seen.add(entry);
    if (fresh.some((entry) => !entry.startsWith('!'))) kept.push({ group: fresh, message });
  }
  return kept;
}

function includes(row) {
  const tests = row.tests ?? ['*.test.ts'];
  return [
    ...row.folders.map((folder) => `${folder}/**`),
    ...row.folders.flatMap((folder) => tests.map((test) => `!${folder}/**/${test}`)),
  ];
}

/** The noRestrictedImports overrides the table means, in the order Biome must have them. */
export function layerOverrides() {
  const byName = new Map();
  for (const row of LAYERS) {
    if (row.within !== undefined && !byName.has(row.within))
      throw new Error(`layer ${row.layer} is within ${row.within}, which must come before it`);
    byName.set(row.layer, row);
  }
  return LAYERS.map((row) => {
    const allowed = row.packages ?? [];
    const packageRefusals =
      allowed === 'any'
        ? []
        : Object.entries(PACKAGES)
            .filter(([name]) => !allowed.includes(name))
            .map(([, { packages, message }]) => group(packages, message));
    return {
      includes: includes(row),
      linter: {
        rules: {
          style: {
            noRestrictedImports: {
              level: 'error',
              options: { patterns: withoutRepeats([...restrictions(row, byName), ...packageRefusals]) },
            },
          },
        },
      },
    };
  });
}

const setsImportRule = (override) => override.linter?.rules?.style?.noRestrictedImports !== undefined;

/**
 * biome.json's overrides as the table has them: the generated ones first, then every override
 * that does not restrict imports (written by hand, kept as it is). An override that restricts
 * imports belongs in the table: one written into biome.json would be replaced.
 */
export function overridesFor(current) {
  return [...layerOverrides(), ...(current ?? []).filter((override) => !setsImportRule(override))];
}

export const FIX_COMMAND = 'node scripts/layers.mjs --write';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const biomeJson = path.join(repoRoot, 'biome.json');

/** Whether biome.json's overrides are what the table generates. */
export function biomeJsonIsCurrent() {
  const config = JSON.parse(readFileSync(biomeJson, 'utf8'));
  return isDeepStrictEqual(config.overrides, overridesFor(config.overrides));
}

function write() {
  const config = JSON.parse(readFileSync(biomeJson, 'utf8'));
  config.overrides = overridesFor(config.overrides);
  writeFileSync(biomeJson, `${JSON.stringify(config, null, 2)}\n`);
  // Biome lays its own config out (short arrays on one line): let it, so that lint stays clean.
  const biome = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'biome'),
    ['format', '--write', biomeJson],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  );
  if (biome.status !== 0) throw new Error(`biome format biome.json failed:\n${biome.stdout}${biome.stderr}`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode] = process.argv.slice(2);
  if (mode === '--write') {
    write();
    console.log(`biome.json: ${LAYERS.length} layer overrides written from scripts/layers.mjs`);
  } else if (mode === '--check' || mode === undefined) {
    if (!biomeJsonIsCurrent()) {
      console.error(
        `biome.json's import overrides are not what scripts/layers.mjs generates: run ${FIX_COMMAND}`,
      );
      process.exit(1);
    }
    console.log("biome.json's import overrides are what scripts/layers.mjs generates");
  } else {
    console.error('usage: node scripts/layers.mjs [--check | --write]');
    process.exit(2);
  }
}
