package dev.pipewright.flink;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;

/**
 * The Node worker the jar carries (PROTOCOL.md, the plan's `worker.command`): the resource
 * {@value #RESOURCE}, which Maven copies from dist/flink/flinkWorker.mjs, written out to a file the
 * first time a subtask needs it, so that a TaskManager needs `node` on its PATH and not the CLI's
 * checkout (as PyFlink's need Python).
 *
 * <p>Once per TaskManager JVM: the folder is a private temporary one (Files.createTempDirectory:
 * only this user can write into it, so no one else can put a file at the worker's name), made by
 * the first job that needs it and found by the next through a system property, since each job's
 * classes come from a class loader of their own and so have their own statics. The file is named
 * by a digest of its bytes, so jobs of two runner builds in one TaskManager each get their own
 * worker, and subtasks extracting at once both write a temporary file and move it into place
 * atomically: a worker never starts from a half-written file. Both are deleted when the JVM exits
 * normally.
 */
final class BundledWorker {
  /** The placeholder in `worker.command` for the extracted worker's path. */
  static final String PLACEHOLDER = "{worker}";
  /** Where the jar carries the worker. */
  static final String RESOURCE = "pipewright/flinkWorker.mjs";
  /** The JVM's folder of extracted workers, shared by every job's class loader. */
  private static final String DIR_PROPERTY = "dev.pipewright.flink.workerDir";

  /** This class loader's worker (one per job), once extracted. */
  private static Path extracted;

  private BundledWorker() {}

  /**
   * The plan's command with every `{worker}` replaced by the extracted worker's path; a command
   * without the placeholder is returned as it is, and nothing is extracted.
   */
  static List<String> command(List<String> planCommand) throws IOException {
    if (planCommand.stream().noneMatch(part -> part.contains(PLACEHOLDER))) return planCommand;
    String path = path().toString();
    List<String> command = new ArrayList<>(planCommand.size());
    for (String part : planCommand) command.add(part.replace(PLACEHOLDER, path));
    return command;
  }

  /** The extracted worker of this jar, extracted at the first call. */
  static synchronized Path path() throws IOException {
    // Extracted again if it went (see jvmDirectory): a restart must not find it missing.
    if (extracted == null || !Files.isRegularFile(extracted)) {
      extracted = extract(BundledWorker.class.getClassLoader(), RESOURCE, jvmDirectory());
    }
    return extracted;
  }

  /**
   * Writes the resource `name` into `dir` as `flinkWorker-<digest>.mjs` unless a file of that
   * name is there already (same name, same bytes); its path.
   */
  static Path extract(ClassLoader loader, String name, Path dir) throws IOException {
    byte[] bytes;
    try (InputStream in = loader.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("the runner jar carries no worker (" + name + "): build it again with "
            + "`npm run build` and `mvn -f flink/pom.xml package`");
      }
      bytes = in.readAllBytes();
    }
    Path file = dir.resolve("flinkWorker-" + digest(bytes) + ".mjs");
    if (Files.isRegularFile(file) && Files.size(file) == bytes.length) return file;
    Path partial = Files.createTempFile(dir, ".flinkWorker-", ".partial");
    try {
      Files.write(partial, bytes);
      try {
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        // Same folder: not expected; a plain replace is the next best.
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(partial);
    }
    file.toFile().deleteOnExit();
    return file;
  }

  /**
   * The JVM's private folder for workers, made by the first caller in any class loader (the lock
   * and the property are the JVM's, not a class loader's), and made anew if it went (a cleaner of
   * temporary files under a long-running TaskManager).
   */
  private static Path jvmDirectory() throws IOException {
    Properties properties = System.getProperties();
    synchronized (properties) {
      String dir = properties.getProperty(DIR_PROPERTY);
      if (dir != null && Files.isDirectory(Paths.get(dir))) return Paths.get(dir);
      Path made;
      try {
        made = Files.createTempDirectory("pipewright-worker-");
      } catch (IOException e) {
        throw new IOException("cannot make a folder for the Node worker: " + e.getMessage(), e);
      }
      // Registered before the files in it: deleteOnExit deletes in the reverse order.
      made.toFile().deleteOnExit();
      properties.setProperty(DIR_PROPERTY, made.toString());
      return made;
    }
  }

  private static String digest(byte[] bytes) {
    try {
      byte[] sha = MessageDigest.getInstance("SHA-256").digest(bytes);
      return HexFormat.of().formatHex(sha, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
