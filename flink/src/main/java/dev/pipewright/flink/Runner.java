package dev.pipewright.flink;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.client.program.ProgramAbortException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs a plan (PROTOCOL.md) on Flink: `--plan FILE | --plan-base64 TEXT [--checkpoint-dir DIR]`.
 * Started as a plain `java` main it runs on an embedded MiniCluster and waits for the job's end;
 * submitted to a cluster (its main called inside the JobManager, `pipewright flink --cluster`),
 * it submits the job and returns: the CLI follows the job through the REST API. The plan comes
 * inline there (base64 of its JSON), since the JobManager need not see the CLI's files.
 *
 * <p>Locally, after `mvn -q -f flink/pom.xml package` (Java 17 needs flink-dist's default
 * `env.java.opts.all`: Flink reflects into these JDK modules):
 *
 * <pre>
 * java -XX:+IgnoreUnrecognizedVMOptions \
 *   --add-exports=java.base/sun.net.util=ALL-UNNAMED \
 *   --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED \
 *   --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED \
 *   --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED \
 *   --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
 *   --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED \
 *   --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED \
 *   --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
 *   --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED \
 *   --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED \
 *   -cp flink/target/pipewright-flink-runner.jar:$(cat flink/target/classpath.txt) \
 *   dev.pipewright.flink.Runner --plan PLAN.json
 * </pre>
 *
 * <p>stdout carries only the events the CLI reads, one JSON line each: `submitted` (with the
 * job id), then `finished` (with Flink's run time in ms) and exit status 0, or `failed` (the
 * deepest cause's message: the user's one line) and exit status 1. Flink's logs go to stderr, at
 * warn unless `-Dorg.slf4j.simpleLogger.defaultLogLevel=...` says otherwise. Status 2: bad usage.
 */
public final class Runner {
  private Runner() {}

  public static void main(String[] args) {
    // Before any logger exists: Flink logs a few hundred info lines a run.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    int status = run(args, System.out);
    // A plain `java` run exits explicitly (a MiniCluster can leave non-daemon threads behind).
    // Run by a cluster (its main called inside a JobManager), exiting would end that JVM: fail.
    if (local) System.exit(status);
    if (status != 0) throw new IllegalStateException("the Pipewright job failed (exit status " + status + ")");
  }

  /** Whether the last run's environment was a local MiniCluster (a plain `java` main). */
  private static volatile boolean local = true;

  /** Runs the job; returns the exit status. The events go to `events`. */
  public static int run(String[] args, PrintStream events) {
    String planFile = null;
    String planBase64 = null;
    String checkpointFlag = null;
    boolean usage = false;
    for (int i = 0; i < args.length; i++) {
      boolean hasValue = i + 1 < args.length;
      switch (args[i]) {
        case "--plan" -> planFile = hasValue ? args[++i] : null;
        case "--plan-base64" -> planBase64 = hasValue ? args[++i] : null;
        case "--checkpoint-dir" -> checkpointFlag = hasValue ? args[++i] : null;
        default -> usage = true;
      }
    }
    if (usage || (planFile == null) == (planBase64 == null)) {
      System.err.println("usage: Runner (--plan PLAN.json | --plan-base64 TEXT) [--checkpoint-dir DIR]");
      return 2;
    }
    Path tempCheckpoints = null;
    try {
      Plan plan = planFile != null
          ? Plan.read(Paths.get(planFile))
          : Plan.parse(new String(Base64.getDecoder().decode(planBase64), StandardCharsets.UTF_8));
      // Inside a cluster the environment is the cluster's; asked without a configuration first,
      // so that a job there without a checkpoint folder of its own uses the cluster's (a
      // temporary one would be deleted as soon as main returns, with the job still running).
      local = StreamExecutionEnvironment.getExecutionEnvironment() instanceof LocalStreamEnvironment;
      String checkpoints = checkpointFlag != null ? checkpointFlag : plan.checkpointDir;
      if (checkpoints == null && local) {
        tempCheckpoints = Files.createTempDirectory("pipewright-flink-checkpoints");
        checkpoints = tempCheckpoints.toString();
      }
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration(plan, checkpoints));
      env.setMaxParallelism(plan.maxParallelism);
      new JobBuilder(plan, env).build();
      JobClient client = env.executeAsync(plan.jobName);
      events.println("{\"event\":\"submitted\",\"jobId\":\"" + client.getJobID() + "\"}");
      events.flush();
      if (!local) return 0;
      JobExecutionResult result = client.getJobExecutionResult().get();
      events.println("{\"event\":\"finished\",\"jobId\":\"" + result.getJobID() + "\",\"ms\":"
          + result.getNetRuntime() + "}");
      events.flush();
      return 0;
    } catch (ProgramAbortException t) {
      throw t; // a cluster's client extracting the job graph stops main this way: not a failure
    } catch (Throwable t) {
      events.println("{\"event\":\"failed\",\"message\":" + Json.quote(message(t)) + "}");
      events.flush();
      if (!(deepest(t) instanceof UserError)) t.printStackTrace();
      return 1;
    } finally {
      if (tempCheckpoints != null) deleteQuietly(tempCheckpoints);
    }
  }

  /**
   * The job's configuration: RocksDB, exactly-once checkpoints at the plan's interval into
   * `checkpoints` (null: the cluster's own checkpoint folder), and a fixed-delay restart (a worker that dies is restarted from the last
   * checkpoint; a user error suppresses restarts itself). Records are never changed once made
   * (JSON text, immutable EdgeRecords), so chained operators may pass them without copies.
   */
  static Configuration configuration(Plan plan, String checkpoints) {
    Map<String, String> conf = new HashMap<>();
    conf.put("state.backend.type", "rocksdb");
    conf.put("execution.checkpointing.interval", plan.checkpointIntervalMs + " ms");
    conf.put("execution.checkpointing.mode", "EXACTLY_ONCE");
    if (checkpoints != null) {
      conf.put("execution.checkpointing.dir", checkpoints.contains("://")
          ? checkpoints : Paths.get(checkpoints).toAbsolutePath().toUri().toString());
    }
    if (plan.savepoint != null) {
      // Every state in it must find its operator (by uid, the operator's id), as Flink's default.
      conf.put("execution.state-recovery.path", plan.savepoint.contains(":")
          ? plan.savepoint : Paths.get(plan.savepoint).toAbsolutePath().toUri().toString());
    }
    conf.put("restart-strategy.type", "fixed-delay");
    conf.put("restart-strategy.fixed-delay.attempts", "3");
    conf.put("restart-strategy.fixed-delay.delay", "1 s");
    conf.put("pipeline.object-reuse", "true");
    if (plan.hasLoop()) pinForLoops(conf);
    return Configuration.fromMap(conf);
  }

  /**
   * What a loop relies on (docs/flink-loops-design.md §3), over anything a cluster's configuration
   * says: aligned exactly-once barriers (the loop's cut is a barrier's; unaligned checkpoints would
   * leave records in channels no log holds), checkpoints after tasks finish (the heads go on taking
   * them while the loop drains), streaming mode (the control source is unbounded), and RocksDB's own
   * timers (with heap timers RocksDB snapshots them into raw keyed state, which LoopHead's log uses).
   */
  private static void pinForLoops(Map<String, String> conf) {
    conf.put("execution.checkpointing.mode", "EXACTLY_ONCE");
    conf.put("execution.checkpointing.unaligned.enabled", "false");
    conf.put("execution.checkpointing.aligned-checkpoint-timeout", "0 ms");
    conf.put("execution.checkpointing.checkpoints-after-tasks-finish", "true");
    conf.put("execution.runtime-mode", "STREAMING");
    conf.put("state.backend.type", "rocksdb");
    conf.put("state.backend.rocksdb.timer-service.factory", "ROCKSDB");
  }

  /** The user's one line: the deepest cause's message (or its class when it has none). */
  static String message(Throwable t) {
    Throwable d = deepest(t);
    String m = d.getMessage();
    if (m == null || m.isBlank()) m = d.getClass().getName();
    int newline = m.indexOf('\n');
    return newline < 0 ? m : m.substring(0, newline);
  }

  static Throwable deepest(Throwable t) {
    Throwable d = t;
    while (d.getCause() != null && d.getCause() != d) d = d.getCause();
    return d;
  }

  private static void deleteQuietly(Path dir) {
    // The MiniCluster may still be discarding a checkpoint while this walks: files vanish.
    for (int attempt = 0; attempt < 3 && Files.exists(dir); attempt++) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | java.io.UncheckedIOException ignored) {
        // try again; a temp dir left behind is no failure of the job
      }
    }
  }
}
