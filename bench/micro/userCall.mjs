#!/usr/bin/env node
// Micro-benchmark: the cost of one call of user code, in its own process (SES lockdown()
// changes the intrinsics of the process that runs it). Prints one JSON object on stdout:
//   { plainNs, engine: { ns, compileUs } | { todo }, sesNs, builtins: { plainNs, engineNs?, sesNs } }
// - plainNs: a plain function defined in this file, called with a hardened ctx.
// - engine: the same source compiled by the engine's sandbox
//   (dist/engine/sandbox/userCode.js: compileUserCode(...), after ensureLockdown() from it
//   or from lockdown.js beside it), if built.
// - sesNs: for reference, the same source evaluated in a bare SES Compartment with no
//   endowments (what the architecture's ~40 ns figure is about), not the engine's code.
// - builtins: the same three for a function that uses Math and JSON, which compileUserCode
//   binds as constants: in a bare Compartment each free `Math` or `JSON` is looked up through
//   SES's scope proxy.
// - compileUs: what compileUserCode takes for such a function, the mean of 50.
// Each figure is the best of 5 rounds of N calls; results are summed so the calls cannot
// be optimised away.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const N = Number(process.argv[2] ?? 5_000_000);
const userCodePath = process.argv[3];
const SOURCE = 'function map(record, ctx) { return record.v + 1; }';
const BUILTINS_SOURCE =
  'function map(record, ctx) { return Math.max(record.v, JSON.stringify(record.v).length); }';

function plainMap(record, _ctx) {
  return record.v + 1;
}

function plainBuiltins(record, _ctx) {
  return Math.max(record.v, JSON.stringify(record.v).length);
}

// Each measurement gets a loop of its own (a fresh function, so a fresh call site that
// stays monomorphic for the function it measures).
const LOOP_BODY = 'let s = 0; for (let i = 0; i < n; i++) s += fn(records[i & 63], ctx); return s;';

function measure(fn, ctx) {
  const loop = new Function('fn', 'records', 'ctx', 'n', LOOP_BODY);
  const records = [];
  for (let i = 0; i < 64; i++) records.push({ k: `key-${i}`, v: i });
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    sink += loop(fn, records, ctx, N);
    const ns = ((performance.now() - t0) * 1e6) / N;
    if (ns < best) best = ns;
  }
  if (sink === -1) console.error('unreachable');
  return Number(best.toFixed(1));
}

const result = {};
let locked = false;
let engineBuiltins;
/** Finds the compiled function whatever shape compileUserCode returns it in. */
function pick(compiled) {
  if (typeof compiled === 'function') return compiled;
  if (typeof compiled?.map === 'function') return compiled.map;
  if (typeof compiled?.fn === 'function') return compiled.fn;
  return undefined;
}

if (userCodePath && existsSync(userCodePath)) {
  try {
    const mod = await import(pathToFileURL(userCodePath).href);
    const lockPath = join(dirname(userCodePath), 'lockdown.js');
    const ensureLockdown =
      mod.ensureLockdown ??
      (existsSync(lockPath) ? (await import(pathToFileURL(lockPath).href)).ensureLockdown : undefined);
    if (typeof mod.compileUserCode !== 'function' || typeof ensureLockdown !== 'function') {
      result.engine = { todo: 'the engine sandbox exports no compileUserCode / ensureLockdown' };
    } else {
      ensureLockdown();
      locked = true;
      // The engine's signature (engine/operators/userFunctions.ts), else the plain (code, name) one.
      const compile = (code) => {
        try {
          return pick(
            mod.compileUserCode({ code, operatorId: 'bench', functionNames: ['map'], required: ['map'] }),
          );
        } catch {
          return pick(mod.compileUserCode(code, 'map'));
        }
      };
      const fn = compile(SOURCE);
      if (fn === undefined) result.engine = { todo: 'compileUserCode returned no function "map"' };
      else {
        const t0 = performance.now();
        for (let i = 0; i < 50; i++) compile(SOURCE);
        const compileUs = Number((((performance.now() - t0) / 50) * 1000).toFixed(0));
        result.engine = { ns: measure(fn, harden({ emit() {} })), compileUs };
        engineBuiltins = compile(BUILTINS_SOURCE);
      }
    }
  } catch (e) {
    result.engine = { todo: `compileUserCode failed: ${e?.message ?? e}` };
  }
} else {
  result.engine = { todo: 'dist/engine/sandbox/userCode.js is not built' };
}

await import('ses');
if (!locked) lockdown();
const ctx = harden({ emit() {} });
result.plainNs = measure(plainMap, ctx);
const sesMap = new Compartment().evaluate(`(${SOURCE})`);
result.sesNs = measure(sesMap, ctx);
result.builtins = {
  plainNs: measure(plainBuiltins, ctx),
  ...(engineBuiltins === undefined ? {} : { engineNs: measure(engineBuiltins, ctx) }),
  sesNs: measure(new Compartment().evaluate(`(${BUILTINS_SOURCE})`), ctx),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
