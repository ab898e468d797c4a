// `npm run web -- [FILE.job.json] [--port N]`: the browser form of the designer. Prints the URL
// to open on one line and serves until SIGINT or SIGTERM. Exit 1 when it cannot start, 2 on a
// usage error.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startWebServer } from './webServer.js';

const USAGE = `Usage: npm run web -- [FILE.job.json] [--port N]

Serves the designer and its engine host on 127.0.0.1 and prints the page's URL, which carries
a token made for this start: only that page can use the host.
  FILE      a job file to open at start
  --port N  the port to listen on (default: any free port)`;

class UsageError extends Error {}

type Command = { help: true } | { help: false; port: number; file?: string };

function complain(text: string): void {
  process.stderr.write(`pipewright web: ${text}\n`);
}

function parseCommandLine(argv: readonly string[]): Command {
  let parsed: { values: { port?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) return { help: true };
  if (parsed.positionals.length > 1)
    throw new UsageError(`one file at most, got ${parsed.positionals.length}`);
  const portText = parsed.values.port ?? '0';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`--port must be 0..65535, got ${portText}`);
  const [file] = parsed.positionals;
  if (file === undefined) return { help: false, port };
  // npm runs scripts in the package folder; INIT_CWD is where the user typed the command.
  return { help: false, port, file: resolve(process.env.INIT_CWD ?? process.cwd(), file) };
}

async function checkFile(file: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch {
    throw new Error(`cannot open ${file}: no such file`);
  }
  if (!isFile) throw new Error(`cannot open ${file}: it is not a file`);
}

async function serve(command: { port: number; file?: string }): Promise<number> {
  try {
    if (command.file !== undefined) await checkFile(command.file);
    const server = await startWebServer({
      port: command.port,
      ...(command.file === undefined ? {} : { initialFile: command.file }),
    });
    process.stdout.write(`Pipewright designer: ${server.url}\n`);
    const stop = (): void => {
      // A client that holds its socket open must not keep the process alive past the signal.
      setTimeout(() => process.exit(0), 2000).unref();
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      complain(`port ${command.port} is in use; pick another with --port N`);
    } else {
      complain((error as Error).message);
    }
    return 1;
  }
}

async function main(): Promise<number> {
  let command: Command;
  try {
    command = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    complain((error as Error).message);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  return serve(command);
}

process.exitCode = await main();
