package bench.flink;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The keyed read-modify-write job of bench/run.mjs's keyed suite, on Flink in a local
 * MiniCluster: read {"k","v"} JSONL lines, keep {n, sum} per k in value state, emit {k, n, sum}
 * per record. The topology is the Pipewright job's: source and parse at parallelism 1, hash on
 * k into the keyed operator at parallelism P, the sink at parallelism 1.
 *
 * <pre>
 * KeyedJob INPUT OUTPUT PARALLELISM rocksdb|heap [--tmp-dir DIR] [--checkpoint-dir DIR --checkpoint-interval MS]
 * </pre>
 *
 * Prints one JSON line on stdout at the end: Flink's version, the job's own run time as the
 * JobManager counts it (netRuntime: without the JVM's and the MiniCluster's start), the time of
 * execute() (with the MiniCluster's start and stop) and the time since the JVM started.
 */
public final class KeyedJob {
  /** One input line. Public fields and a no-argument constructor: a Flink POJO. */
  public static final class In {
    public String k;
    public long v;

    public In() {}
  }

  /** The value state of a key. */
  public static final class Acc {
    public long n;
    public long sum;

    public Acc() {}
  }

  /** One output line. */
  @JsonPropertyOrder({"k", "n", "sum"})
  public static final class Out {
    public String k;
    public long n;
    public long sum;

    public Out() {}

    Out(String k, long n, long sum) {
      this.k = k;
      this.n = n;
      this.sum = sum;
    }
  }

  static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** A line of JSON into an In, with Jackson. */
  public static final class Parse implements MapFunction<String, In> {
    @Override
    public In map(String line) throws Exception {
      return JSON.readValue(line, In.class);
    }
  }

  public static final class ByK implements KeySelector<In, String> {
    @Override
    public String getKey(In r) {
      return r.k;
    }
  }

  /** Read the key's {n, sum}, add 1 and v, write it back, emit {k, n, sum}. */
  public static final class Accumulate extends KeyedProcessFunction<String, In, Out> {
    private transient ValueState<Acc> acc;

    @Override
    public void open(OpenContext ctx) {
      acc = getRuntimeContext().getState(new ValueStateDescriptor<>("acc", Acc.class));
    }

    @Override
    public void processElement(In r, Context ctx, Collector<Out> out) throws Exception {
      Acc a = acc.value();
      if (a == null) a = new Acc();
      a.n += 1;
      a.sum += r.v;
      acc.update(a);
      out.collect(new Out(r.k, a.n, a.sum));
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 4) usage("expected INPUT OUTPUT PARALLELISM rocksdb|heap");
    String input = args[0];
    String output = args[1];
    int parallelism = Integer.parseInt(args[2]);
    String backend = args[3];
    if (!backend.equals("rocksdb") && !backend.equals("heap")) usage("backend is rocksdb or heap");
    Map<String, String> options = new HashMap<>();
    for (int i = 4; i < args.length; i += 2) {
      if (i + 1 >= args.length) usage(args[i] + " takes a value");
      options.put(args[i], args[i + 1]);
    }

    Map<String, String> conf = new HashMap<>();
    conf.put("state.backend.type", backend.equals("rocksdb") ? "rocksdb" : "hashmap");
    String tmp = options.get("--tmp-dir");
    if (tmp != null) {
      Files.createDirectories(Paths.get(tmp));
      conf.put("io.tmp.dirs", tmp);
      conf.put("state.backend.rocksdb.localdir", tmp);
    }
    String checkpoints = options.get("--checkpoint-dir");
    if (checkpoints != null) {
      conf.put("execution.checkpointing.dir", Paths.get(checkpoints).toUri().toString());
      conf.put(
          "execution.checkpointing.interval",
          Duration.ofMillis(Long.parseLong(options.getOrDefault("--checkpoint-interval", "1000")))
                  .toMillis()
              + " ms");
    }

    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, Configuration.fromMap(conf));
    env.setMaxParallelism(128); // as the Pipewright job's maxParallelism

    FileSource<String> source =
        FileSource.forRecordStreamFormat(new TextLineInputFormat(), new Path(input)).build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "jsonl source")
        .setParallelism(1)
        .map(new Parse())
        .name("parse")
        .setParallelism(1)
        .keyBy(new ByK())
        .process(new Accumulate())
        .name("acc")
        .setParallelism(parallelism)
        .sinkTo(new JsonlFileSink<>(output))
        .name("jsonl sink")
        .setParallelism(1);

    long t0 = System.nanoTime();
    JobExecutionResult result = env.execute("keyed read-modify-write");
    long executeMs = (System.nanoTime() - t0) / 1_000_000;
    long sinceJvmStartMs =
        System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    System.out.println(
        JSON.writeValueAsString(
            Map.of(
                "flink", EnvironmentInformation.getVersion(),
                "java", System.getProperty("java.version"),
                "backend", backend,
                "parallelism", parallelism,
                "jobMs", result.getNetRuntime(),
                "executeMs", executeMs,
                "sinceJvmStartMs", sinceJvmStartMs)));
  }

  private static void usage(String message) {
    System.err.println("KeyedJob: " + message);
    System.err.println(
        "usage: KeyedJob INPUT OUTPUT PARALLELISM rocksdb|heap [--tmp-dir DIR]"
            + " [--checkpoint-dir DIR --checkpoint-interval MS]");
    System.exit(2);
  }
}
