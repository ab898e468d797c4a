package dev.pipewright.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A test's folder that a MiniCluster job wrote its checkpoints into. The local environment shuts
 * its MiniCluster down after the job's result is known, asynchronously, and may still be writing
 * or discarding a checkpoint there when the test returns: JUnit's own removal of a @TempDir then
 * fails the test ("Failed to delete temp directory"), as it did on a loaded machine. Such a folder
 * is removed here instead, again until Flink has let go of it.
 */
final class TestDirs {
  private TestDirs() {}

  static void deleteWhenReleased(Path dir, Duration within) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    for (;;) {
      try {
        deleteTree(dir);
        return;
      } catch (IOException | UncheckedIOException e) {
        if (System.nanoTime() > deadline) throw e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
        Thread.sleep(100);
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dir)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : paths) Files.deleteIfExists(p);
  }
}
