#!/usr/bin/env node
// Runs a command and reads the CPU time of each of its threads while it runs (Linux: every 50 ms
// from /proc/<pid>/task/*/stat; the last reading before a thread ends is its total, give or take
// 50 ms). On a shared machine a run's wall time says little; its threads' CPU seconds say where
// the work is, e.g. whether a run on two threads splits it evenly.
//   node bench/threadCpu.mjs -- node bin/pipewright.js run job.json --threads 2
// Prints one line: wall seconds, all threads' CPU seconds, and the threads' CPU seconds, most first.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readStat } from './processTreeCpu.mjs';

const at = process.argv.indexOf('--');
const [command, ...args] = at >= 0 ? process.argv.slice(at + 1) : [];
if (command === undefined) {
  console.error('usage: node bench/threadCpu.mjs -- COMMAND [ARGS...]');
  process.exit(2);
}
const t0 = performance.now();
const child = spawn(command, args, { stdio: 'inherit' });
const threads = new Map();
const read = () => {
  let tasks;
  try {
    tasks = readdirSync(`/proc/${child.pid}/task`);
  } catch {
    return;
  }
  for (const tid of tasks) {
    // Undefined when the thread ended between the listing and the read.
    const stat = readStat(`/proc/${child.pid}/task/${tid}/stat`);
    if (stat !== undefined) threads.set(tid, { name: stat.name, cpu: stat.cpuS });
  }
};
const timer = setInterval(read, 50);
child.on('exit', (code, signal) => {
  clearInterval(timer);
  const rows = [...threads.values()].sort((a, b) => b.cpu - a.cpu);
  const total = rows.reduce((sum, r) => sum + r.cpu, 0);
  const top = rows
    .filter((r) => r.cpu >= 0.1)
    .map((r) => `${r.name} ${r.cpu.toFixed(2)}`)
    .join(', ');
  const wall = (performance.now() - t0) / 1000;
  console.log(
    `exit ${code ?? signal}: wall ${wall.toFixed(2)} s, CPU ${total.toFixed(2)} s; threads: ${top}`,
  );
  process.exitCode = code ?? 1;
});
