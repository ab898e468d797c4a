// Two operators on one file: two sinks writing it (each publishes its own output into it, so
// one's records overwrite or interleave with the other's), or a sink writing the file a source
// reads. Paths are compared as the engine opens them: resolved against the job file's folder when
// the validator is told it, else compared as written once normalised ("./a" is "a").
import type { Finding } from './finding.js';
import type { GraphContext, OperatorFacts } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import { isAbsolutePath, normalizePath, resolvePath } from './posixPath.js';
import { quote } from './valueWords.js';

interface FileUse {
  readonly op: OperatorFacts;
  readonly written: string;
  /** The path as compared; undefined when it cannot be (absolute against relative, no folder). */
  readonly file: string;
}

function fileUses(ctx: GraphContext, role: 'source' | 'sink'): FileUse[] {
  const uses: FileUse[] = [];
  for (const op of ctx.operators) {
    const path = op.params?.path;
    if (op.kind?.role !== role || typeof path !== 'string' || path === '') continue;
    const file = ctx.jobDir === undefined ? normalizePath(path) : resolvePath(ctx.jobDir, path);
    uses.push({ op, written: path, file });
  }
  return uses;
}

/** Without the folder, a relative path and an absolute one may or may not meet: not said. */
const comparable = (a: FileUse, b: FileUse) => isAbsolutePath(a.file) === isAbsolutePath(b.file);

function finding(later: FileUse, first: FileUse, says: string): Finding {
  return {
    code: 'same-file',
    message: says,
    path: ['operators', later.op.index, 'params', 'path'],
    ids: [later.op.id, first.op.id],
  };
}

/** The file as compared, and how each wrote it where that differs. */
function asWritten(a: FileUse, b: FileUse): string {
  const file = quote(a.file);
  if (a.written !== b.written) return `${file} (written ${quote(a.written)} and ${quote(b.written)})`;
  return a.written === a.file ? file : `${file} (${quote(a.written)})`;
}

export const sameFile: GraphRule = (ctx) => {
  const writers = fileUses(ctx, 'sink');
  const readers = fileUses(ctx, 'source');
  const findings: Finding[] = [];
  const firstWriter = new Map<string, FileUse>();
  for (const writer of writers) {
    const first = firstWriter.get(writer.file);
    if (first === undefined) {
      firstWriter.set(writer.file, writer);
    } else if (comparable(first, writer)) {
      findings.push(
        finding(
          writer,
          first,
          `operators ${quote(first.op.id)} and ${quote(writer.op.id)} both write the file ${asWritten(first, writer)}: one would overwrite the other's records; give each sink a file of its own`,
        ),
      );
    }
    const reader = readers.find((r) => r.file === writer.file && comparable(r, writer));
    if (reader !== undefined) {
      findings.push(
        finding(
          writer,
          reader,
          `operator ${quote(writer.op.id)} writes the file ${asWritten(writer, reader)}, which operator ${quote(reader.op.id)} reads: the run would overwrite its own input; write another file`,
        ),
      );
    }
  }
  return findings;
};
