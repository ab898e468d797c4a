// The engine's folders are layered (README.md, Layout) and Biome holds the layering: each folder's
// noRestrictedImports override in biome.json forbids the folders at its level or above, and the
// third-party packages that are not its own (the connectors' clients outside the connectors, React
// in renderer/document). Those overrides are generated from one table, scripts/layers.mjs: this
// test checks biome.json is what the table generates, then lints probe files against a copy of it,
// outside the source tree, to show that every boundary refuses a back import and lets a downward
// one through. Separately, it reads the real import graph and checks that no folders import each
// other in a circle.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIX_COMMAND, overridesFor } from '../scripts/layers.mjs';
import { repoRoot } from './cliHarness.js';
import { engineFolders, folderCycles, folderImports } from './engineImportGraph.js';

const PURE = ['graph', 'metrics', 'protocol'];
const RUNTIME_AND_BELOW = [...PURE, 'sandbox', 'state', 'runtime'];
const DEPLOY_AND_BELOW = [...RUNTIME_AND_BELOW, 'checkpoint', 'operators', 'deploy'];
/** What each engine folder's non-test files may import, bottom to top. */
const MAY_IMPORT: Record<string, string[]> = {
  graph: [],
  metrics: [],
  protocol: ['graph', 'metrics'],
  sandbox: PURE,
  state: [...PURE, 'sandbox'],
  runtime: [...PURE, 'sandbox', 'state'],
  // checkpoint and operators meet through interfaces in runtime, never import each other.
  checkpoint: RUNTIME_AND_BELOW,
  operators: RUNTIME_AND_BELOW,
  deploy: [...RUNTIME_AND_BELOW, 'checkpoint', 'operators'],
  debug: DEPLOY_AND_BELOW,
  host: [...DEPLOY_AND_BELOW, 'debug'],
  cli: DEPLOY_AND_BELOW,
  // The Flink runner's worker runs an operator's logic over a pipe, not a job through deploy.
  flink: [...RUNTIME_AND_BELOW, 'operators'],
};
const FOLDERS = Object.keys(MAY_IMPORT);
const RULE = 'lint/style/noRestrictedImports';
/** The folders engine/operators/kindFactories.ts loads on demand: only they import the clients. */
const CONNECTORS = ['operators/kafka', 'operators/postgres', 'operators/redis'];
const CONNECTOR_CLIENTS = ['pg', 'pg-logical-replication', 'redis', '@platformatic/kafka'];
const UI_LIBRARIES = ['react', 'react/jsx-runtime', 'react-dom/client', '@xyflow/react', 'zustand', 'zundo'];

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

/** Probe files (path under the probe root -> text), linted together in one Biome run. */
const probes = new Map<string, string>();
const importing = (specifier: string) =>
  `import { probe } from '${specifier}';\n\nexport const copy = probe;\n`;
for (const from of FOLDERS) {
  for (const to of FOLDERS)
    if (to !== from) probes.set(`engine/${from}/to_${to}.ts`, importing(`../${to}/x.js`));
  probes.set(`engine/${from}/nodeApi.ts`, importing('node:fs'));
  probes.set(`engine/${from}/ui.ts`, importing('react'));
}
// The back imports of the brief, in every form an import takes.
const BACK_IMPORT_FORMS: Record<string, string> = {
  'engine/state/subtask.ts':
    "import { Subtask } from '../runtime/subtask.js';\n\nexport const x = Subtask;\n",
  'engine/state/typeOnly.ts':
    "import type { Subtask } from '../runtime/subtask.js';\n\nexport type X = Subtask;\n",
  'engine/state/reexport.ts': "export { Subtask } from '../runtime/subtask.js';\n",
  'engine/state/dynamic.ts': "export const load = () => import('../runtime/subtask.js');\n",
  'engine/state/longWay.ts': importing('../../engine/runtime/subtask.js'),
  'engine/debug/host.ts': importing('../host/hostService.js'),
  'engine/cli/host.ts': importing('../host/hostService.js'),
};
for (const [file, text] of Object.entries(BACK_IMPORT_FORMS)) probes.set(file, text);
// The connectors' clients: in every folder but the connectors' (an operators folder too), and
// every client in a folder a layer above.
const clientName = (client: string) => client.replace(/\W/g, '_');
for (const folder of [...FOLDERS, 'operators/nexmark', ...CONNECTORS])
  probes.set(`engine/${folder}/client_pg.ts`, importing('pg'));
for (const client of CONNECTOR_CLIENTS) {
  probes.set(`engine/deploy/client_${clientName(client)}.ts`, importing(client));
  probes.set(`engine/operators/postgres/sink/client_${clientName(client)}.ts`, importing(client));
}
probes.set('engine/host/clients.test.ts', importing('pg'));
// The renderer: React in its views, not in the document model; no Node, no engine runtime.
for (const library of UI_LIBRARIES) {
  probes.set(`renderer/document/ui_${clientName(library)}.ts`, importing(library));
  probes.set(`renderer/canvas/ui_${clientName(library)}.ts`, importing(library));
}
const RENDERER_ALLOWED: Record<string, string> = {
  'renderer/document/layout.ts': importing('@dagrejs/dagre'),
  'renderer/document/graph.ts': importing('../../engine/graph/index.js'),
  'renderer/document/ui.test.ts': importing('react'),
  'renderer/app/protocol.ts': importing('../../engine/protocol/protocol.js'),
  'electron/desktopApi.ts': importing('../engine/host/desktopApi.js'),
};
const RENDERER_REFUSED: Record<string, string> = {
  'renderer/document/nodeApi.ts': importing('node:fs'),
  'renderer/canvas/nodeApi.ts': importing('node:fs'),
  'renderer/run/runtime.ts': importing('../../engine/runtime/subtask.js'),
  'renderer/document/client_pg.ts': importing('pg'),
  'electron/renderer.ts': importing('../renderer/store/designerStore.js'),
  'electron/react.ts': importing('react'),
  'electron/deploy.ts': importing('../engine/deploy/jobRun.js'),
  'electron/client_pg.ts': importing('pg'),
};
for (const [file, text] of Object.entries({ ...RENDERER_ALLOWED, ...RENDERER_REFUSED }))
  probes.set(file, text);
// A test may import any layer.
probes.set(
  'engine/state/layers.test.ts',
  "import { runtime } from '../runtime/x.js';\nimport { cli } from '../cli/y.js';\n\nexport const both = [runtime, cli];\n",
);

let probeRoot: string;
let found: Map<string, Diagnostic[]>;

beforeAll(() => {
  probeRoot = mkdtempSync(path.join(os.tmpdir(), 'pipewright-layering-'));
  copyFileSync(path.join(repoRoot, 'biome.json'), path.join(probeRoot, 'biome.json'));
  for (const [file, text] of probes) {
    mkdirSync(path.dirname(path.join(probeRoot, file)), { recursive: true });
    writeFileSync(path.join(probeRoot, file), text);
  }
  const biome = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'biome'),
    [
      'lint',
      '--reporter=json',
      '--max-diagnostics=none',
      `--config-path=${probeRoot}`,
      'engine',
      'renderer',
      'electron',
    ],
    { cwd: probeRoot, encoding: 'utf8' },
  );
  const report = JSON.parse(biome.stdout) as { diagnostics: Diagnostic[] };
  found = new Map();
  for (const diagnostic of report.diagnostics) {
    const file = diagnostic.location.path.split(path.sep).join('/');
    found.set(file, [...(found.get(file) ?? []), diagnostic]);
  }
});

afterAll(() => {
  if (probeRoot) rmSync(probeRoot, { recursive: true, force: true });
});

/** The probe files Biome refused, each with the rule that refused it. */
function refused(files: string[]): string[] {
  return files.filter((file) => found.has(file)).map((file) => `${file}: ${found.get(file)![0]!.category}`);
}

describe('the engine layering in biome.json', () => {
  it('is what scripts/layers.mjs generates', () => {
    const config = JSON.parse(readFileSync(path.join(repoRoot, 'biome.json'), 'utf8')) as {
      overrides: unknown[];
    };
    expect(
      config.overrides,
      `biome.json's import overrides differ from the table in scripts/layers.mjs: run ${FIX_COMMAND}`,
    ).toEqual(overridesFor(config.overrides));
  });

  it('places every engine folder, each with its own override', () => {
    expect(engineFolders(path.join(repoRoot, 'engine'))).toEqual([...FOLDERS].sort());
    const config = JSON.parse(readFileSync(path.join(repoRoot, 'biome.json'), 'utf8')) as {
      overrides: { includes: string[] }[];
    };
    for (const folder of FOLDERS) {
      expect(config.overrides.map((override) => override.includes)).toContainEqual([
        `engine/${folder}/**`,
        `!engine/${folder}/**/*.test.ts`,
      ]);
    }
  });

  it('refuses every import of a folder at the same level or above and lets every downward one through', () => {
    const pairs = FOLDERS.flatMap((from) => FOLDERS.filter((to) => to !== from).map((to) => ({ from, to })));
    const files = pairs.map(({ from, to }) => `engine/${from}/to_${to}.ts`);
    const backImports = pairs
      .filter(({ from, to }) => !MAY_IMPORT[from]!.includes(to))
      .map(({ from, to }) => `engine/${from}/to_${to}.ts: ${RULE}`);
    expect(refused(files)).toEqual(backImports);
    for (const { from, to } of pairs.filter((pair) => !MAY_IMPORT[pair.from]!.includes(pair.to))) {
      const [diagnostic] = found.get(`engine/${from}/to_${to}.ts`)!;
      expect(diagnostic!.message, `${from} -> ${to}`).toContain(`engine/${from}`);
    }
  });

  it('refuses a back import however it is written: value, type, re-export, import() and a longer path', () => {
    const files = Object.keys(BACK_IMPORT_FORMS);
    expect(refused(files)).toEqual(files.map((file) => `${file}: ${RULE}`));
    expect(found.get('engine/state/subtask.ts')![0]!.message).toBe(
      'engine/state sits below runtime: it may import only graph, metrics, protocol and sandbox. Layering: README.md, Layout.',
    );
  });

  it('keeps graph, metrics and protocol free of Node APIs', () => {
    const files = FOLDERS.map((folder) => `engine/${folder}/nodeApi.ts`);
    expect(refused(files)).toEqual(PURE.map((folder) => `engine/${folder}/nodeApi.ts: ${RULE}`));
  });

  it('keeps every folder away from the UI and Electron', () => {
    const files = FOLDERS.map((folder) => `engine/${folder}/ui.ts`);
    expect(refused(files)).toEqual(files.map((file) => `${file}: ${RULE}`));
    for (const file of files) expect(found.get(file)![0]!.message).toContain('engine/ never imports the UI');
  });

  it('lets a test import any layer', () => {
    expect(found.get('engine/state/layers.test.ts')).toBeUndefined();
  });

  it("keeps the connectors' clients in the connectors, which load on demand", () => {
    const files = [...FOLDERS, 'operators/nexmark', ...CONNECTORS].map(
      (folder) => `engine/${folder}/client_pg.ts`,
    );
    expect(refused(files)).toEqual(
      files
        .filter((file) => !CONNECTORS.some((c) => file.startsWith(`engine/${c}/`)))
        .map((f) => `${f}: ${RULE}`),
    );
    for (const client of CONNECTOR_CLIENTS) {
      const [diagnostic] = found.get(`engine/deploy/client_${clientName(client)}.ts`) ?? [];
      expect(diagnostic?.message ?? 'not refused', client).toContain('Only the connectors');
      expect(
        found.get(`engine/operators/postgres/sink/client_${clientName(client)}.ts`),
        client,
      ).toBeUndefined();
    }
    expect(found.get('engine/host/clients.test.ts')).toBeUndefined();
  });

  it('keeps React and the UI libraries out of renderer/document, and in the views', () => {
    for (const library of UI_LIBRARIES) {
      const [diagnostic] = found.get(`renderer/document/ui_${clientName(library)}.ts`) ?? [];
      expect(diagnostic?.message ?? 'not refused', library).toContain(
        'renderer/document is the job document model',
      );
      expect(found.get(`renderer/canvas/ui_${clientName(library)}.ts`), library).toBeUndefined();
    }
  });

  it('keeps the renderer in the browser and electron/ a thin shell', () => {
    expect(refused(Object.keys(RENDERER_ALLOWED))).toEqual([]);
    expect(refused(Object.keys(RENDERER_REFUSED))).toEqual(
      Object.keys(RENDERER_REFUSED).map((file) => `${file}: ${RULE}`),
    );
    expect(found.get('renderer/document/nodeApi.ts')![0]!.message).toContain('renderer/ runs in a browser');
    expect(found.get('electron/renderer.ts')![0]!.message).toContain('electron/ is the thin shell');
    expect(found.get('electron/deploy.ts')![0]!.message).toContain('electron/ holds no engine logic');
  });
});

describe('the engine import graph', () => {
  it('has no folders that import each other in a circle', () => {
    expect(folderCycles(folderImports(repoRoot)).join('\n')).toBe('');
  });
});
