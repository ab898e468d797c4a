package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker the jar carries: `{worker}` in the plan's command, its extraction, a missing `node`. */
class BundledWorkerTest {
  @TempDir Path dir;

  /** A class loader whose only resource is pipewright/flinkWorker.mjs holding `text`. */
  private URLClassLoader loaderWith(String text) throws IOException {
    Path root = Files.createTempDirectory(dir, "classes-");
    Path resource = root.resolve(BundledWorker.RESOURCE);
    Files.createDirectories(resource.getParent());
    Files.writeString(resource, text);
    return new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
  }

  @Test
  void thePlaceholderBecomesTheExtractedWorkersPath() throws Exception {
    List<String> command = BundledWorker.command(List.of("node", "{worker}", "--from={worker}"));
    Path worker = BundledWorker.path();
    assertEquals(List.of("node", worker.toString(), "--from=" + worker), command);
    assertTrue(worker.isAbsolute(), worker.toString());
    // The very bundle the build copied from dist/flink (`npm run build`) into the jar's classes.
    Path bundle = Paths.get(System.getProperty("user.dir"), "..", "dist", "flink", "flinkWorker.mjs");
    assertArrayEquals(Files.readAllBytes(bundle), Files.readAllBytes(worker));
    assertTrue(worker.getFileName().toString().matches("flinkWorker-[0-9a-f]{16}\\.mjs"), worker.toString());
  }

  @Test
  void aCommandWithoutThePlaceholderIsKeptAsItIs() throws Exception {
    List<String> plan = List.of("node", "/abs/fakeWorker.mjs");
    assertSame(plan, BundledWorker.command(plan));
  }

  @Test
  void theWorkerIsExtractedOnceAndThenReused() throws Exception {
    Path first = BundledWorker.path();
    Object inode = Files.readAttributes(first, "unix:ino").get("ino");
    assertEquals(first, BundledWorker.path());
    assertEquals(inode, Files.readAttributes(BundledWorker.path(), "unix:ino").get("ino"));
    // Another class loader (a second job in the TaskManager) finds the same file in the same folder.
    URL classes = BundledWorker.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader job = new URLClassLoader(new URL[] {classes}, null)) {
      Path again = BundledWorker.extract(job, BundledWorker.RESOURCE, first.getParent());
      assertEquals(first, again);
      assertEquals(inode, Files.readAttributes(again, "unix:ino").get("ino"), "the file was written again");
    }
  }

  @Test
  void subtasksExtractingAtOnceGetOneWholeFile() throws Exception {
    String text = "console.log('worker');\n".repeat(50_000);
    List<Path> paths = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (URLClassLoader loader = loaderWith(text)) {
      List<Future<Path>> extracting = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        extracting.add(pool.submit(() -> BundledWorker.extract(loader, BundledWorker.RESOURCE, dir)));
      }
      for (Future<Path> f : extracting) paths.add(f.get());
    } finally {
      pool.shutdown();
    }
    for (Path p : paths) assertEquals(paths.get(0), p);
    assertEquals(text, Files.readString(paths.get(0), StandardCharsets.UTF_8));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(paths.get(0).getFileName().toString()),
          files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("classes-")).toList(),
          "no temporary file is left behind");
    }
    // Other bytes (another runner build) are another file beside it.
    try (URLClassLoader other = loaderWith("console.log('other');\n")) {
      Path otherPath = BundledWorker.extract(other, BundledWorker.RESOURCE, dir);
      assertTrue(!otherPath.equals(paths.get(0)), otherPath.toString());
    }
  }

  @Test
  void aJarWithoutTheWorkerSaysSo() throws Exception {
    try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
      IOException e = assertThrows(IOException.class,
          () -> BundledWorker.extract(empty, BundledWorker.RESOURCE, dir));
      assertTrue(e.getMessage().startsWith("the runner jar carries no worker (pipewright/flinkWorker.mjs)"),
          e.getMessage());
    }
  }

  @Test
  void aProgramMissingFromThePathFailsWithoutRestartsInOneLine() {
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class,
        () -> WorkerProcess.start(List.of("pipewright-no-such-program", "{worker}"), "worker of operator \"count\" subtask 0"));
    assertTrue(e.getCause() instanceof UserError);
    assertEquals("cannot start the worker of operator \"count\" subtask 0: `pipewright-no-such-program` was not "
        + "found on the TaskManager's PATH", e.getCause().getMessage());
  }

  @Test
  void aMissingNodeSaysWhatToInstall() {
    String line = WorkerProcess.cannotStart(List.of("node", "/tmp/w.mjs"), "worker of operator \"count\" subtask 1",
        new IOException("Cannot run program \"node\": error=2, No such file or directory"));
    assertEquals("cannot start the worker of operator \"count\" subtask 1: `node` was not found on the "
        + "TaskManager's PATH (install Node.js 20 or later on every TaskManager)", line);
    // A path that is not there is the plan's own path, not the PATH's.
    String byPath = WorkerProcess.cannotStart(List.of("/opt/node/bin/node", "w.mjs"), "worker",
        new IOException("Cannot run program \"/opt/node/bin/node\": error=2, No such file or directory"));
    assertEquals("cannot start the worker (/opt/node/bin/node w.mjs): Cannot run program "
        + "\"/opt/node/bin/node\": error=2, No such file or directory", byPath);
  }
}
