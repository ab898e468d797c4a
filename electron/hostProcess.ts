// The engine host in its utilityProcess: started with the data folder and the file from the
// command line, given one MessagePort per page, told about files the OS asks us to open. If it
// dies it is started again (the pages see their port close and ask for a new one); if it dies
// again right after starting, it is left stopped and the failure reported once.
import { MessageChannelMain, type MessagePortMain, type UtilityProcess, utilityProcess } from 'electron';
import type { HostToShellMessage, ShellToHostMessage } from '../engine/host/shellMessages.js';

export interface HostProcessOptions {
  /** dist/engine/host/utilityMain.js */
  readonly entry: string;
  readonly dataDir: string;
  /** Offered to the page at the first start only: after a restart the page already has its document. */
  readonly initialFile?: string;
  readonly onRecentChanged: (list: readonly string[]) => void;
  readonly onFailed: (reason: string) => void;
}

/** A host that exits this soon after starting is failing at start, and restarting it would loop. */
const STARTUP_GRACE_MS = 5000;

export class HostProcess {
  private child: UtilityProcess | undefined;
  private spawned = false;
  private queued: { message: ShellToHostMessage; ports: MessagePortMain[] }[] = [];
  private stopping = false;
  private starts = 0;

  constructor(private readonly options: HostProcessOptions) {}

  start(): void {
    const args = ['--data-dir', this.options.dataDir];
    if (this.starts === 0 && this.options.initialFile !== undefined) {
      args.push('--initial-file', this.options.initialFile);
    }
    this.starts += 1;
    const startedAt = Date.now();
    const child = utilityProcess.fork(this.options.entry, args, {
      serviceName: 'Pipewright engine host',
      stdio: 'inherit',
    });
    this.child = child;
    this.spawned = false;
    child.once('spawn', () => {
      this.spawned = true;
      for (const { message, ports } of this.queued.splice(0)) child.postMessage(message, ports);
    });
    child.on('message', (message: Partial<HostToShellMessage> | null) => {
      if (message?.type === 'recentChanged' && Array.isArray(message.list))
        this.options.onRecentChanged(message.list);
    });
    child.once('exit', (code) => {
      if (this.child !== child) return;
      this.child = undefined;
      this.queued = [];
      if (this.stopping) return;
      if (Date.now() - startedAt < STARTUP_GRACE_MS) {
        this.options.onFailed(`The engine host stopped while starting (exit code ${code}).`);
      } else {
        this.start();
      }
    });
  }

  /** A new connection for one page: the returned port goes to the page, its twin to the host. */
  connect(): MessagePortMain {
    const { port1, port2 } = new MessageChannelMain();
    this.post({ type: 'connect' }, [port1]);
    return port2;
  }

  openFile(path: string): void {
    this.post({ type: 'openFile', path }, []);
  }

  stop(): void {
    this.stopping = true;
    this.child?.kill();
  }

  private post(message: ShellToHostMessage, ports: MessagePortMain[]): void {
    if (this.child === undefined) {
      // No host: closing the port tells the page at once instead of leaving it waiting.
      for (const port of ports) port.close();
      return;
    }
    if (this.spawned) this.child.postMessage(message, ports);
    else this.queued.push({ message, ports });
  }
}
