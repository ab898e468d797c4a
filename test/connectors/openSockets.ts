// The TCP connections this process (every thread of it: the host's run thread, part workers) has
// open to a port: the socket inodes among /proc/self/fd, looked up in /proc/self/net/tcp and tcp6.
// Counting only this process's own sockets, a test is not misled by other runs against the
// same shared server.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function ownSocketInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed since it was listed
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) inodes.add(inode);
  }
  return inodes;
}

/** How many of this process's TCP sockets are connected (in any state but closed) to `port`. */
export function socketsTo(port: number): number {
  const own = ownSocketInodes();
  let count = 0;
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const remotePort = Number.parseInt(fields[2]!.split(':')[1]!, 16);
      if (remotePort === port && own.has(fields[9]!)) count++;
    }
  }
  return count;
}
