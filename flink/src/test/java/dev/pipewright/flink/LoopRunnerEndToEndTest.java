package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plan with a loop through the Runner on a MiniCluster (the wiring of docs/flink-loops-design.md
 * end to end): records go round a process head 30 times each by its feedback edge, with the stand-in
 * worker (fakeWorker.mjs, `hops`) so the test needs no CLI. Its worker dies once after a checkpoint
 * completed, while records circulate: Flink restarts the head, its tail and its control source
 * together from that checkpoint, the heads replay what their logs hold, and the job still ends (the
 * control source's rule) with every record's line committed exactly once. (Without the heads'
 * replay no line is committed at all: the first checkpoint finds every record in the loop.)
 * Tagged e2e.
 */
@Tag("e2e")
class LoopRunnerEndToEndTest {
  private static final int RECORDS = 200;
  private static final int HOPS = 30;

  /** Removed by removeDir, not JUnit: see TestDirs. */
  @TempDir(cleanup = CleanupMode.NEVER) Path dir;

  @AfterEach
  void removeDir() throws Exception {
    TestDirs.deleteWhenReleased(dir, Duration.ofSeconds(30));
  }

  private Path plan(String workerParams) throws IOException {
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < RECORDS; i++) {
      in.append("{\"k\":\"k").append(i % 11).append("\",\"i\":").append(i).append(",\"hops\":").append(HOPS)
          .append("}\n");
    }
    Files.writeString(dir.resolve("in.jsonl"), in.toString());
    Path worker = Paths.get(System.getProperty("user.dir"), "target", "test-classes", "fakeWorker.mjs");
    String json = """
        {
          "format": "pipewright.flink-plan/1",
          "jobName": "loop-test",
          "maxParallelism": 128,
          "checkpointIntervalMs": 100,
          "checkpointDir": "%s",
          "batch": { "records": 10, "latencyMs": 5 },
          "worker": { "command": ["node", "%s"] },
          "operators": [
            { "id": "src", "kind": "source.jsonl", "parallelism": 1, "params": { "path": "%s" } },
            { "id": "hop", "kind": "process", "parallelism": 2, "params": %s },
            { "id": "out", "kind": "sink.jsonl", "parallelism": 1, "params": { "path": "%s" } }
          ],
          "edges": [
            { "id": "e1", "from": "src", "to": "hop", "partition": "hash", "key": "k" },
            { "id": "back", "from": "hop", "fromPort": "again", "to": "hop", "partition": "hash", "key": "k",
              "feedback": true },
            { "id": "e2", "from": "hop", "to": "out", "partition": "rebalance" }
          ],
          "sinkDirs": { "out": "%s" }
        }
        """.formatted(dir.resolve("checkpoints"), worker, dir.resolve("in.jsonl"), workerParams,
        dir.resolve("out.jsonl"), dir.resolve("out.flink"));
    Path plan = dir.resolve("plan.json");
    Files.writeString(plan, json);
    return plan;
  }

  private List<String> run(Path plan) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status;
    try (PrintStream events = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      status = Runner.run(new String[] {"--plan", plan.toString()}, events);
    }
    List<String> events = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(0, status, events.toString());
    assertTrue(events.get(events.size() - 1).startsWith("{\"event\":\"finished\""), events.toString());
    return events;
  }

  /** The committed part files' lines, sorted (in-progress files are hidden, `.part-*`). */
  private List<String> committed() throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir.resolve("out.flink"))) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
      }
    }
    Collections.sort(lines);
    return lines;
  }

  /** Each record once, after its last hop, which came by the feedback edge. */
  private static List<String> expected() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) lines.add("{\"i\":" + i + ",\"via\":\"back\"}");
    Collections.sort(lines);
    return lines;
  }

  @Test
  void everyRecordGoesRoundItsLoopAndTheJobEnds() throws Exception {
    run(plan("{ \"hops\": true }"));
    assertEquals(expected(), committed());
  }

  @Test
  void aWorkerThatDiesMidLoopLosesNothingAndDuplicatesNothing() throws Exception {
    Path marker = dir.resolve("crashed");
    Path opens = dir.resolve("opens.log");
    run(plan("{ \"hops\": true, \"batchDelayMs\": 2, \"crashMarker\": \"" + marker
        + "\", \"crashAfterCheckpointIn\": \"" + dir.resolve("checkpoints")
        + "\", \"opensLog\": \"" + opens + "\" }"));
    assertTrue(Files.exists(marker), "the worker never crashed");
    // Both subtasks' workers opened twice: the head's whole region restarted.
    assertEquals(4, Files.readAllLines(opens).size());
    assertEquals(expected(), committed());
  }
}
