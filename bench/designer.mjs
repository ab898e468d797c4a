// The designer's performance: validating a generated 500-operator job with the engine's own
// validator, and the browser form's time to first render and its frame times while panning,
// each side by side with a 3-operator job measured in the same run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../e2e/chromiumPath.mjs';
import { REPO_DIR } from './engineRun.mjs';

const dist = (p) => pathToFileURL(join(REPO_DIR, 'dist', p)).href;

/** A job of `count` operators: pipelines of a generator, keyed process steps and maps, and a sink. */
export function generatedJob(count) {
  const operators = [];
  const edges = [];
  const positions = {};
  const perPipeline = 50;
  for (let p = 0; operators.length < count; p++) {
    const ids = [];
    for (let i = 0; i < perPipeline && operators.length < count; i++) {
      const id = `p${p}_${i}`;
      const last = i === perPipeline - 1 || operators.length === count - 1;
      let op;
      if (i === 0) {
        op = {
          id,
          kind: 'source.generator',
          parallelism: 1,
          params: { code: 'function generate(i, ctx) { return { k: i % 100, v: i }; }', count: 1000 },
        };
      } else if (last) {
        op = { id, kind: 'sink.jsonl', parallelism: 1, params: { path: `out-${p}.jsonl` } };
      } else if (i % 3 === 0) {
        op = {
          id,
          kind: 'process',
          parallelism: 2,
          params: {
            code: 'function process(r, ctx) { const s = ctx.state.value("n"); s.set((s.get() ?? 0) + 1); ctx.emit(r); }',
          },
        };
      } else {
        op = {
          id,
          kind: 'map',
          parallelism: 2,
          params: { code: 'function map(r, ctx) { return { ...r, v: r.v + 1 }; }' },
        };
      }
      operators.push(op);
      positions[id] = { x: i * 240, y: p * 120 };
      const prev = ids.at(-1);
      if (prev !== undefined) {
        const keyed = op.kind === 'process';
        const prevOp = operators[operators.length - 2];
        const partition = keyed ? 'hash' : prevOp.parallelism === op.parallelism ? 'forward' : 'rebalance';
        edges.push({
          id: `e${edges.length + 1}`,
          from: prev,
          to: id,
          partition,
          ...(keyed ? { key: 'k' } : {}),
        });
      }
      ids.push(id);
    }
  }
  return { format: 'pipewright.job/1', name: `generated-${count}`, operators, edges, editor: { positions } };
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { min: s[0], median: at(0.5), p95: at(0.95), max: s.at(-1), n: s.length };
}

async function validationTimes(job, runs) {
  const { validateJob } = await import(dist('engine/graph/index.js'));
  const text = JSON.stringify(job);
  for (let i = 0; i < 20; i++) validateJob(JSON.parse(text));
  const validate = [];
  const parse = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const value = JSON.parse(text);
    parse.push(performance.now() - t);
    t = performance.now();
    const { problems } = validateJob(value);
    validate.push(performance.now() - t);
    if (problems.length > 0) throw new Error(`generated job is invalid: ${problems[0].message}`);
  }
  return { validate: stats(validate), parse: stats(parse) };
}

/**
 * Runs in the page from its first script on: notes the animation frame at which the canvas
 * first shows the whole job (every operator visible, every edge drawn). Polling from the page
 * itself, not through Playwright, whose own injected script would otherwise be compiled in the
 * middle of what is measured and delay the check by up to ~150 ms.
 */
function noteWhenDrawn({ operators, edges }) {
  const check = () => {
    const nodes = document.querySelectorAll('.react-flow__node');
    let drawn = nodes.length === operators && document.querySelectorAll('.react-flow__edge').length === edges;
    for (const node of nodes) if (node.style.visibility === 'hidden') drawn = false;
    if (drawn) window.__pipewrightDrawnAt = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

/** Milliseconds from navigation start until the canvas shows the whole job, then frame times while panning. */
async function renderAndPan(browser, url, job) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(noteWhenDrawn, { operators: job.operators.length, edges: job.edges.length });
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__pipewrightDrawnAt !== undefined, undefined, {
      timeout: 30_000,
    });
    const firstRenderMs = await page.evaluate(() => window.__pipewrightDrawnAt);
    const pane = await page.locator('.react-flow__pane').boundingBox();
    if (pane === null) throw new Error('no canvas pane');
    await page.evaluate(() => {
      const w = window;
      w.__frames = [];
      let last = performance.now();
      const tick = (t) => {
        w.__frames.push(t - last);
        last = t;
        if (w.__frames.length < 100000) w.__raf = requestAnimationFrame(tick);
      };
      w.__raf = requestAnimationFrame(tick);
    });
    const cx = pane.x + pane.width / 2;
    const cy = pane.y + pane.height / 2;
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 1; i <= 60; i++) await page.mouse.move(cx - i * 8, cy - (i % 20) * 3);
    await page.mouse.up();
    const frames = await page.evaluate(() => {
      cancelAnimationFrame(window.__raf);
      return window.__frames.slice(1);
    });
    return { firstRenderMs, frames: stats(frames) };
  } finally {
    await context.close();
  }
}

export async function designerSuite({ quick = false } = {}) {
  const big = generatedJob(500);
  const small = generatedJob(3);
  const validation = {
    big: await validationTimes(big, quick ? 20 : 200),
    small: await validationTimes(small, quick ? 20 : 200),
  };
  const executablePath = await findChromium();
  if (executablePath === undefined) return { validation, render: undefined, operators: big.operators.length };
  const { startWebServer } = await import(dist('engine/host/webServer.js'));
  const dir = mkdtempSync(join(tmpdir(), 'pipewright-bench-designer-'));
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const render = { big: [], small: [] };
    for (const [name, job] of [
      ['big', big],
      ['small', small],
    ]) {
      const file = join(dir, `${name}.job.json`);
      writeFileSync(file, JSON.stringify(job, null, 2));
      mkdirSync(join(dir, `data-${name}`), { recursive: true });
      const server = await startWebServer({ initialFile: file, dataDir: join(dir, `data-${name}`) });
      try {
        for (let i = 0; i < (quick ? 2 : 5); i++)
          render[name].push(await renderAndPan(browser, server.url, job));
      } finally {
        await server.close();
      }
    }
    const summarize = (runs) => ({
      firstRenderMs: stats(runs.map((r) => r.firstRenderMs)),
      framesP95Ms: stats(runs.map((r) => r.frames.p95)),
      framesMaxMs: stats(runs.map((r) => r.frames.max)),
    });
    return {
      validation,
      render: { big: summarize(render.big), small: summarize(render.small) },
      operators: big.operators.length,
    };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await designerSuite({ quick: process.argv.includes('--quick') });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
