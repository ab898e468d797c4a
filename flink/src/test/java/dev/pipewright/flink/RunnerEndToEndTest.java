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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole jobs on a MiniCluster in this JVM, with a fake worker in plain Node.js
 * (src/test/resources/fakeWorker.mjs: a running count per key in value state): source.jsonl ->
 * hash on k -> process at parallelism 2 -> sink.jsonl, plus its side port "first" into a second
 * sink. The committed part files, joined, must hold exactly the expected lines, with or without
 * a worker dying once. Tagged e2e: `-De2e.excluded=e2e` leaves them out.
 */
@Tag("e2e")
class RunnerEndToEndTest {
  private static final int RECORDS = 2000;
  /** Enough that records are still in flight after the first checkpoints complete. */
  private static final int MANY = 20000;
  private static final String[] KEYS = {"a", "b", "c", "d", "e", "f", "g"};

  /** Removed by removeDir, not JUnit: see TestDirs. */
  @TempDir(cleanup = CleanupMode.NEVER) Path dir;

  @AfterEach
  void removeDir() throws Exception {
    TestDirs.deleteWhenReleased(dir, Duration.ofSeconds(30));
  }

  private record Run(int status, List<String> events, String stdout) {}

  private Path input(String extra) throws IOException {
    return input(RECORDS, extra);
  }

  private Path input(int records, String extra) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < records; i++) {
      b.append("{\"k\":\"").append(KEYS[i % KEYS.length]).append("\",\"n\":").append(i).append("}\n");
      if (i == 10) b.append("\n   \n"); // blank lines are skipped, as the local engine does
      if (i == 20) b.append("{\"k\":\"a\",\"n\":\"crlf\"}\r\n");
    }
    b.append(extra);
    Path file = dir.resolve("in.jsonl");
    Files.writeString(file, b.toString());
    return file;
  }

  private static List<String> expectedCounts(int records) {
    Map<String, Integer> n = new TreeMap<>();
    for (int i = 0; i < records; i++) n.merge(KEYS[i % KEYS.length], 1, Integer::sum);
    n.merge("a", 1, Integer::sum); // the \r\n line
    List<String> lines = new ArrayList<>();
    n.forEach((k, c) -> {
      for (int i = 1; i <= c; i++) lines.add("{\"k\":\"" + k + "\",\"count\":" + i + "}");
    });
    Collections.sort(lines);
    return lines;
  }

  private Path plan(Path input, String workerParams) throws IOException {
    return plan(input, workerParams, 10);
  }

  private Path plan(Path input, String workerParams, int batchRecords) throws IOException {
    Path worker = Paths.get(System.getProperty("user.dir"), "target", "test-classes", "fakeWorker.mjs");
    String json = """
        {
          "format": "pipewright.flink-plan/1",
          "jobName": "count-test",
          "maxParallelism": 128,
          "checkpointIntervalMs": 200,
          "checkpointDir": "%s",
          "batch": { "records": %d, "latencyMs": 50 },
          "worker": { "command": ["node", "%s"] },
          "operators": [
            { "id": "src", "kind": "source.jsonl", "parallelism": 1, "params": { "path": "%s" } },
            { "id": "count", "kind": "process", "parallelism": 2, "params": %s },
            { "id": "out", "kind": "sink.jsonl", "parallelism": 1, "params": { "path": "%s" } },
            { "id": "firsts", "kind": "sink.jsonl", "parallelism": 1, "params": { "path": "%s" } }
          ],
          "edges": [
            { "id": "e1", "from": "src", "to": "count", "partition": "hash", "key": "k" },
            { "id": "e2", "from": "count", "to": "out", "partition": "rebalance" },
            { "id": "e3", "from": "count", "fromPort": "first", "to": "firsts", "partition": "rebalance" }
          ],
          "sinkDirs": { "out": "%s", "firsts": "%s" }
        }
        """.formatted(dir.resolve("checkpoints"), batchRecords, worker, input, workerParams, dir.resolve("out.jsonl"), dir.resolve("firsts.jsonl"),
        dir.resolve("out.flink"), dir.resolve("firsts.flink"));
    Path plan = dir.resolve("plan.json");
    Files.writeString(plan, json);
    return plan;
  }

  private Run run(Path plan) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status;
    try (PrintStream events = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      status = Runner.run(new String[] {"--plan", plan.toString()}, events);
    }
    String stdout = bytes.toString(StandardCharsets.UTF_8);
    assertNoWorkerLeft();
    return new Run(status, stdout.lines().collect(Collectors.toList()), stdout);
  }

  /** Every worker this JVM started has exited: none is orphaned, on success or failure. */
  private static void assertNoWorkerLeft() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
      assertTrue(System.nanoTime() < deadline, "a worker process outlived its job");
      Thread.sleep(50);
    }
  }

  /** The committed part files' lines, sorted (in-progress files are hidden, `.part-*`). */
  private List<String> committed(String sink) throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir.resolve(sink + ".flink"))) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
      }
    }
    Collections.sort(lines);
    return lines;
  }

  private static List<String> firsts() {
    List<String> lines = new ArrayList<>();
    for (String k : KEYS) lines.add("{\"k\":\"" + k + "\"}");
    Collections.sort(lines);
    return lines;
  }

  @Test
  void aKeyedCountRunsExactlyOnceToItsSinks() throws Exception {
    Run run = run(plan(input(""), "{ \"code\": \"-\" }"));
    assertEquals(0, run.status, run.stdout);
    assertTrue(run.events.get(0).matches("\\{\"event\":\"submitted\",\"jobId\":\"[0-9a-f]{32}\"}"), run.stdout);
    assertTrue(run.events.get(1).matches("\\{\"event\":\"finished\",\"jobId\":\"[0-9a-f]{32}\",\"ms\":\\d+}"),
        run.stdout);
    assertEquals(expectedCounts(RECORDS), committed("out")); // the last records too: the final checkpoint
    assertEquals(firsts(), committed("firsts"));
  }

  @Test
  void aWorkerThatDiesOnceIsRestartedAndTheOutputIsStillExactlyOnce() throws Exception {
    Path marker = dir.resolve("crashed");
    // The worker dies once a checkpoint has completed: the restart restores it (state, source
    // position, sink files), then replays what came after it.
    Run run = run(plan(input(MANY, ""), "{ \"crashMarker\": \"" + marker + "\", \"crashAfterCheckpointIn\": \""
        + dir.resolve("checkpoints") + "\", \"batchDelayMs\": 2, \"opensLog\": \"" + dir.resolve("opens") + "\" }", 50));
    assertEquals(0, run.status, run.stdout);
    assertTrue(Files.exists(marker), "the worker never crashed");
    // 2 subtasks opened, then again after the restart.
    assertEquals(4, Files.readAllLines(dir.resolve("opens")).size());
    assertEquals(expectedCounts(MANY), committed("out"));
    assertEquals(firsts(), committed("firsts"));
  }

  @Test
  void aUserErrorFailsTheJobAtOnceWithItsMessage() throws Exception {
    Run run = run(plan(input("{\"k\":\"z\",\"boom\":true}\n"), "{ \"opensLog\": \"" + dir.resolve("opens") + "\" }"));
    assertEquals(1, run.status, run.stdout);
    assertEquals("{\"event\":\"failed\",\"message\":\"boom at key z\"}", run.events.get(run.events.size() - 1));
    // A restart would open the failing subtask's worker again. (The other subtask may be
    // cancelled before its worker opens: counting opens alone would be a race.)
    List<String> opens = Files.readAllLines(dir.resolve("opens"));
    assertEquals(opens.size(), opens.stream().distinct().count(), "the job was restarted: opens " + opens);
  }

  @Test
  void aLineThatIsNotJsonFailsNamingTheOperatorFileAndLine() throws Exception {
    Run run = run(plan(input("{\"k\":\"a\",}\n"), "{}"));
    assertEquals(1, run.status, run.stdout);
    String last = run.events.get(run.events.size() - 1);
    // RECORDS lines, 2 blank ones, the \r\n one: the bad line is the next.
    assertTrue(last.startsWith("{\"event\":\"failed\",\"message\":\"operator \\\"src\\\": in.jsonl:"
        + (RECORDS + 4) + " is not valid JSON ("), last);
  }

  @Test
  void aRecordWithoutItsKeyFailsWithTheLocalEnginesWords() throws Exception {
    Run run = run(plan(input("{\"n\":1}\n"), "{}"));
    assertEquals(1, run.status, run.stdout);
    assertEquals("{\"event\":\"failed\",\"message\":\"edge \\\"e1\\\" is partitioned by \\\"k\\\", "
        + "but the record has no such field\"}", run.events.get(run.events.size() - 1));
  }
  @Test
  void unionsOfForwardRebalanceAndBroadcastEdgesTellTheWorkerTheirEdge() throws Exception {
    StringBuilder a = new StringBuilder();
    StringBuilder b = new StringBuilder();
    List<String> one = new ArrayList<>();
    List<String> two = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      a.append("{\"n\":").append(i).append("}\n");
      b.append("{\"m\":").append(i).append("}\n");
      one.add("{\"n\":" + i + ",\"via\":\"fa\",\"at\":0}");
      one.add("{\"m\":" + i + ",\"via\":\"rb\",\"at\":0}");
      two.add("{\"n\":" + i + ",\"via\":\"ba\",\"at\":0}");
      two.add("{\"n\":" + i + ",\"via\":\"ba\",\"at\":1}");
    }
    Files.writeString(dir.resolve("a.jsonl"), a);
    Files.writeString(dir.resolve("b.jsonl"), b);
    Path worker = Paths.get(System.getProperty("user.dir"), "target", "test-classes", "fakeWorker.mjs");
    String json = """
        {
          "format": "pipewright.flink-plan/1", "jobName": "union-test", "maxParallelism": 128,
          "checkpointIntervalMs": 200, "batch": { "records": 7, "latencyMs": 20 },
          "worker": { "command": ["node", "%s"] },
          "operators": [
            { "id": "a", "kind": "source.jsonl", "parallelism": 1, "params": { "path": "%s" } },
            { "id": "b", "kind": "source.jsonl", "parallelism": 1, "params": { "path": "%s" } },
            { "id": "m1", "kind": "map", "parallelism": 1, "params": { "stateless": true } },
            { "id": "m2", "kind": "flatMap", "parallelism": 2, "params": { "stateless": true } },
            { "id": "one", "kind": "sink.jsonl", "parallelism": 1, "params": { "path": "x" } },
            { "id": "two", "kind": "sink.jsonl", "parallelism": 1, "params": { "path": "y" } }
          ],
          "edges": [
            { "id": "fa", "from": "a", "to": "m1", "partition": "forward" },
            { "id": "rb", "from": "b", "to": "m1", "partition": "rebalance" },
            { "id": "ba", "from": "a", "to": "m2", "partition": "broadcast" },
            { "id": "o1", "from": "m1", "to": "one", "partition": "forward" },
            { "id": "o2", "from": "m2", "to": "two", "partition": "rebalance" }
          ],
          "sinkDirs": { "one": "%s", "two": "%s" }
        }
        """.formatted(worker, dir.resolve("a.jsonl"), dir.resolve("b.jsonl"), dir.resolve("one.flink"),
        dir.resolve("two.flink"));
    Path plan = dir.resolve("plan.json");
    Files.writeString(plan, json);
    Run run = run(plan);
    assertEquals(0, run.status, run.stdout);
    Collections.sort(one);
    Collections.sort(two);
    assertEquals(one, committed("one"));
    assertEquals(two, committed("two"));
  }
  @Test
  void aSinkAtParallelismOneKeepsTheRecordOrderWhenPartsAreJoinedInNameOrder() throws Exception {
    // PROTOCOL.md: the CLI joins committed parts in name order. Many parts (one per checkpoint),
    // and a worker death after a checkpoint: the order must still be the input's.
    StringBuilder in = new StringBuilder();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < MANY; i++) {
      in.append("{\"n\":").append(i).append("}\n");
      expected.add("{\"n\":" + i + ",\"via\":\"f1\",\"at\":0}");
    }
    Files.writeString(dir.resolve("in.jsonl"), in);
    Path worker = Paths.get(System.getProperty("user.dir"), "target", "test-classes", "fakeWorker.mjs");
    String json = """
        {
          "format": "pipewright.flink-plan/1", "jobName": "order-test", "maxParallelism": 128,
          "checkpointIntervalMs": 100, "checkpointDir": "%s", "batch": { "records": 50, "latencyMs": 20 },
          "worker": { "command": ["node", "%s"] },
          "operators": [
            { "id": "src", "kind": "source.jsonl", "parallelism": 1, "params": { "path": "%s" } },
            { "id": "m", "kind": "map", "parallelism": 1,
              "params": { "stateless": true, "batchDelayMs": 2, "crashMarker": "%s", "crashAfterCheckpointIn": "%s" } },
            { "id": "out", "kind": "sink.jsonl", "parallelism": 1, "params": { "path": "x" } }
          ],
          "edges": [
            { "id": "f1", "from": "src", "to": "m", "partition": "forward" },
            { "id": "f2", "from": "m", "to": "out", "partition": "forward" }
          ],
          "sinkDirs": { "out": "%s" }
        }
        """.formatted(dir.resolve("checkpoints"), worker, dir.resolve("in.jsonl"), dir.resolve("crashed"),
        dir.resolve("checkpoints"), dir.resolve("out.flink"));
    Path plan = dir.resolve("plan.json");
    Files.writeString(plan, json);
    Run run = run(plan);
    assertEquals(0, run.status, run.stdout);
    assertTrue(Files.exists(dir.resolve("crashed")), "the worker never crashed");
    List<Path> parts;
    try (Stream<Path> files = Files.list(dir.resolve("out.flink"))) {
      parts = files.filter(f -> f.getFileName().toString().startsWith("part-")).collect(Collectors.toList());
    }
    parts.sort(Comparator.comparing((Path f) -> f.getFileName().toString()));
    for (Path f : parts) {
      assertTrue(f.getFileName().toString().matches("part-\\d{13}-\\d{9}-[0-9a-f-]{36}-\\d+"), f.toString());
    }
    assertTrue(parts.size() > 2, "expected a part per checkpoint, got " + parts);
    List<String> joined = new ArrayList<>();
    for (Path f : parts) joined.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
    assertEquals(expected, joined);
  }
  @Test
  void mapAndListStateAreWrittenReadAndClearedPerKey() throws Exception {
    String in = String.join("\n",
        "{\"k\":\"a\",\"add\":1}", "{\"k\":\"a\",\"add\":2}", "{\"k\":\"b\",\"add\":5}",
        "{\"k\":\"a\",\"add\":3}", "{\"k\":\"a\",\"get\":1}", "{\"k\":\"a\",\"del\":1}",
        "{\"k\":\"a\",\"q\":true}", "{\"k\":\"b\",\"q\":true}", "{\"k\":\"a\",\"clear\":true}",
        "{\"k\":\"a\",\"q\":true}", "{\"k\":\"b\",\"get\":5}", "{\"k\":\"b\",\"get\":6}") + "\n";
    Path input = dir.resolve("in.jsonl");
    Files.writeString(input, in);
    Run run = run(plan(input, "{ \"stateKinds\": true }", 1));
    assertEquals(0, run.status, run.stdout);
    List<String> expected = new ArrayList<>(List.of(
        "{\"k\":\"a\",\"get\":1,\"v\":\"10\"}",
        "{\"k\":\"a\",\"entries\":[[\"k2\",\"20\"],[\"k3\",\"30\"]],\"list\":[\"1\",\"2\",\"3\"]}",
        "{\"k\":\"b\",\"entries\":[[\"k5\",\"50\"]],\"list\":[\"5\"]}",
        "{\"k\":\"a\",\"entries\":[],\"list\":[]}",
        "{\"k\":\"b\",\"get\":5,\"v\":\"50\"}",
        "{\"k\":\"b\",\"get\":6,\"v\":null}"));
    Collections.sort(expected);
    assertEquals(expected, committed("out"));
  }
}
