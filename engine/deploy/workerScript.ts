// Where a worker thread's entry module is. Workers load the compiled JavaScript: under the test
// runner the engine's own modules are TypeScript (engine/x/y.ts), which Node 20 cannot run in a
// worker, so the entry is taken from the build beside them (dist/engine/x/y.js; `npm test`
// builds first).
import { fileURLToPath, pathToFileURL } from 'node:url';

export function workerScript(moduleUrl: string, sibling: string): URL {
  const url = new URL(sibling, moduleUrl);
  const path = fileURLToPath(moduleUrl);
  if (!path.endsWith('.ts')) return url;
  const compiled = fileURLToPath(url).replace(/([\\/])engine([\\/])/, '$1dist$1engine$2');
  return pathToFileURL(compiled);
}
