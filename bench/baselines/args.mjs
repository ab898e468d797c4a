// Tiny `--name value` argument parser shared by the standalone baseline scripts.
export function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const name = a.slice(2);
    if (!(name in defaults)) throw new Error(`unknown option ${a}`);
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    out[name] = typeof defaults[name] === 'number' ? Number(v) : v;
  }
  for (const [k, v] of Object.entries(out)) {
    if (v === '') throw new Error(`--${k} is required`);
  }
  return out;
}
