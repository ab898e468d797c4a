// CPU seconds of every process a command starts, and of the threads of some of them (Linux: read
// from /proc every 100 ms; the last reading before a process or thread ends is its total, give or
// take 100 ms). The Flink runner's time is split over three kinds of process, the CLI (node), the
// JVM and one Node worker per subtask: on a shared machine the wall time says little of where its
// work is, CPU seconds do. Only for untimed runs: reading /proc costs a little CPU itself.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** { name, ppid, cpuS } of /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat; undefined once it is gone. */
export function readStat(path) {
  try {
    const stat = readFileSync(path, 'utf8');
    // The name may hold spaces and parentheses: the fields after it start after the last ')'.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name, ppid: Number(f[1]), cpuS: (Number(f[11]) + Number(f[12])) / TICKS };
  } catch {
    return undefined;
  }
}

function readCmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** The pids under `root` (itself included), from every process's parent. */
function descendants(root) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = readStat(`/proc/${entry}/stat`);
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(entry));
    children.set(s.ppid, list);
  }
  const out = [];
  const walk = (pid) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/**
 * Runs `command args` to its exit, reading the CPU time of its process tree meanwhile. Resolves
 * { code, signal, stderr, processes: [{ pid, argv, cpuS, threads? }] }, threads ({ tid, name,
 * cpuS }) only for the processes `withThreads(argv)` picks.
 */
export function runWithTreeCpu(command, args, { cwd, withThreads = () => false, intervalMs = 100 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr = (stderr + c).slice(-16_384);
    });
    const processes = new Map();
    const read = () => {
      for (const pid of descendants(child.pid)) {
        const s = readStat(`/proc/${pid}/stat`);
        if (!s) continue;
        let p = processes.get(pid);
        if (!p) {
          p = { pid, argv: [], cpuS: 0, threads: new Map() };
          processes.set(pid, p);
        }
        // Read each time: a process Java starts is first its jspawnhelper, then the program.
        const argv = readCmdline(pid);
        if (argv.length) p.argv = argv;
        p.cpuS = Math.max(p.cpuS, s.cpuS);
        if (!withThreads(p.argv)) continue;
        let tids;
        try {
          tids = readdirSync(`/proc/${pid}/task`);
        } catch {
          continue;
        }
        for (const tid of tids) {
          const t = readStat(`/proc/${pid}/task/${tid}/stat`);
          if (t) p.threads.set(tid, { tid, name: t.name, cpuS: t.cpuS });
        }
      }
    };
    const timer = setInterval(read, intervalMs);
    child.on('error', (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      const list = [...processes.values()].map((p) => ({
        pid: p.pid,
        argv: p.argv,
        cpuS: p.cpuS,
        ...(p.threads.size ? { threads: [...p.threads.values()] } : {}),
      }));
      resolvePromise({ code, signal, stderr, processes: list });
    });
  });
}
