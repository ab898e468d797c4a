package dev.pipewright.flink;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * The plan file (PROTOCOL.md, `pipewright.flink-plan/1`), read once on the client. Operators and
 * edges are Serializable: the worker operator carries its own and its inputs' to the TaskManagers.
 * The CLI has already refused what the runner cannot run, so a bad plan is a bug in the CLI: it
 * fails with a plain message, not a user's one.
 */
public final class Plan {
  public static final String FORMAT = "pipewright.flink-plan/1";

  public final String jobName;
  public final int maxParallelism;
  public final long checkpointIntervalMs;
  public final int batchRecords;
  public final long batchLatencyMs;
  public final List<String> workerCommand;
  public final List<Operator> operators;
  public final List<Edge> edges;
  public final Map<String, String> sinkDirs;
  /** Optional: where checkpoints go (a path or URI); absent, the runner makes a temp dir. */
  public final String checkpointDir;
  /** Optional: the savepoint (a path or URI) the job starts from. */
  public final String savepoint;

  /** One operator, as the job file has it, with its own JSON kept for the worker's `open`. */
  public static final class Operator implements Serializable {
    private static final long serialVersionUID = 1L;
    public final String id;
    public final String kind;
    public final int parallelism;
    /** `params.path` for sources and sinks, else null. */
    public final String path;
    /** The operator's JSON object, as the worker's `open` frame sends it. */
    public final String json;
    /** A source's `timestampField`, split at its dots; null without event time. */
    public final String[] timestampPath;
    /** A source's `maxOutOfOrdernessMs` (0 by default). */
    public final long maxOutOfOrdernessMs;
    /** A source's `idleTimeoutMs`; 0: it never goes idle. */
    public final long idleTimeoutMs;
    /** A source's `count`, or -1 without end. */
    public final long count;

    Operator(String id, String kind, int parallelism, String path, String json, JsonNode params) {
      this.id = id;
      this.kind = kind;
      this.parallelism = parallelism;
      this.path = path;
      this.json = json;
      JsonNode field = params.path("timestampField");
      this.timestampPath = field.isTextual() ? field.asText().split("\\.", -1) : null;
      this.maxOutOfOrdernessMs = params.path("maxOutOfOrdernessMs").asLong(0);
      this.idleTimeoutMs = params.path("idleTimeoutMs").asLong(0);
      this.count = params.path("count").isNumber() ? params.path("count").asLong() : -1;
    }

    public boolean isWorker() {
      return switch (kind) {
        case "map", "filter", "flatMap", "process" -> true;
        default -> false;
      };
    }
  }

  /** One edge. `keyPaths` is null unless `partition` is hash. */
  public static final class Edge implements Serializable {
    private static final long serialVersionUID = 1L;
    public final String id;
    public final String from;
    public final String to;
    public final String partition;
    /** Each key path split at its dots; one path unless the key is composite. */
    public final List<List<String>> keyPaths;
    /** Whether `key` was an array of paths (the key is then a List of their values). */
    public final boolean compositeKey;
    public final String fromPort;
    /** A feedback edge: it closes a loop into its `to`, the loop head (docs/flink-loops-design.md). */
    public final boolean feedback;
    /** `{"id","partition","key"?,"feedback"?}` for the worker's `open` frame (its `inputs`). */
    public final String inputJson;

    Edge(String id, String from, String to, String partition, List<List<String>> keyPaths,
        boolean compositeKey, String fromPort, boolean feedback, String inputJson) {
      this.id = id;
      this.from = from;
      this.to = to;
      this.partition = partition;
      this.keyPaths = keyPaths;
      this.compositeKey = compositeKey;
      this.fromPort = fromPort;
      this.feedback = feedback;
      this.inputJson = inputJson;
    }

    public boolean isHash() {
      return "hash".equals(partition);
    }

    /** The key as the job file writes it: `a.b`, or `a.b, c` for a composite key. */
    public String describePath(int which) {
      return String.join(".", keyPaths.get(which));
    }
  }

  private Plan(JsonNode root) throws IOException {
    String format = root.path("format").asText("");
    if (!FORMAT.equals(format)) {
      throw new IllegalArgumentException("the plan's format is \"" + format + "\", not " + FORMAT);
    }
    jobName = root.path("jobName").asText("pipewright");
    maxParallelism = positive(root, "maxParallelism");
    checkpointIntervalMs = positive(root, "checkpointIntervalMs");
    JsonNode batch = root.path("batch");
    batchRecords = Math.max(1, batch.path("records").asInt(1000));
    batchLatencyMs = Math.max(0, batch.path("latencyMs").asLong(100));
    List<String> command = new ArrayList<>();
    for (JsonNode part : root.path("worker").path("command")) command.add(part.asText());
    workerCommand = Collections.unmodifiableList(command);
    List<Operator> ops = new ArrayList<>();
    for (JsonNode op : root.path("operators")) {
      JsonNode path = op.path("params").path("path");
      ops.add(new Operator(
          required(op, "id"),
          required(op, "kind"),
          Math.max(1, op.path("parallelism").asInt(1)),
          path.isTextual() ? path.asText() : null,
          Json.MAPPER.writeValueAsString(op),
          op.path("params")));
    }
    operators = Collections.unmodifiableList(ops);
    List<Edge> es = new ArrayList<>();
    for (JsonNode e : root.path("edges")) es.add(edge(e));
    edges = Collections.unmodifiableList(es);
    Map<String, String> dirs = new LinkedHashMap<>();
    root.path("sinkDirs").fields().forEachRemaining(f -> dirs.put(f.getKey(), f.getValue().asText()));
    sinkDirs = Collections.unmodifiableMap(dirs);
    JsonNode dir = root.path("checkpointDir");
    checkpointDir = dir.isTextual() && !dir.asText().isEmpty() ? dir.asText() : null;
    JsonNode from = root.path("savepoint");
    savepoint = from.isTextual() && !from.asText().isEmpty() ? from.asText() : null;
  }

  private static Edge edge(JsonNode e) throws IOException {
    String partition = e.path("partition").asText("forward");
    JsonNode key = e.path("key");
    List<List<String>> paths = null;
    boolean composite = key.isArray();
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("id", required(e, "id"));
    input.put("partition", partition);
    if ("hash".equals(partition)) {
      paths = new ArrayList<>();
      if (composite) {
        for (JsonNode p : key) paths.add(List.of(p.asText().split("\\.", -1)));
      } else if (key.isTextual()) {
        paths.add(List.of(key.asText().split("\\.", -1)));
      } else {
        throw new IllegalArgumentException("plan: hash edge \"" + e.path("id").asText() + "\" has no key");
      }
      input.put("key", Json.MAPPER.treeToValue(key, Object.class));
    }
    String port = e.path("fromPort").asText("out");
    boolean feedback = e.path("feedback").asBoolean(false);
    // The worker reports ctx.input for a feedback edge as for any other; it learns it is one.
    if (feedback) input.put("feedback", true);
    return new Edge(required(e, "id"), required(e, "from"), required(e, "to"), partition, paths,
        composite, port, feedback, Json.MAPPER.writeValueAsString(input));
  }

  private static String required(JsonNode node, String field) {
    JsonNode v = node.path(field);
    if (!v.isTextual()) throw new IllegalArgumentException("plan: a \"" + field + "\" is missing in " + node);
    return v.asText();
  }

  private static int positive(JsonNode root, String field) {
    long v = root.path(field).asLong(0);
    if (v <= 0 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("plan: \"" + field + "\" must be a positive integer");
    }
    return (int) v;
  }

  public static Plan parse(String json) throws IOException {
    return new Plan(Json.MAPPER.readTree(json));
  }

  public static Plan read(Path file) throws IOException {
    return parse(Files.readString(file));
  }

  public Operator operator(String id) {
    for (Operator op : operators) if (op.id.equals(id)) return op;
    throw new IllegalArgumentException("plan: no operator \"" + id + "\"");
  }

  public List<Edge> inputsOf(String id) {
    List<Edge> in = new ArrayList<>();
    for (Edge e : edges) if (e.to.equals(id)) in.add(e);
    return in;
  }

  /** The edges into `id` that are not feedback edges: what its input stream is built from. */
  public List<Edge> regularInputsOf(String id) {
    List<Edge> in = new ArrayList<>();
    for (Edge e : edges) if (e.to.equals(id) && !e.feedback) in.add(e);
    return in;
  }

  /** The feedback edges into `id` (a loop head when there is one). */
  public List<Edge> feedbackInputsOf(String id) {
    List<Edge> in = new ArrayList<>();
    for (Edge e : edges) if (e.to.equals(id) && e.feedback) in.add(e);
    return in;
  }

  /** Whether the plan has a loop (a feedback edge): the runner then pins its checkpointing. */
  public boolean hasLoop() {
    for (Edge e : edges) if (e.feedback) return true;
    return false;
  }

  public List<Edge> outputsOf(String id) {
    List<Edge> out = new ArrayList<>();
    for (Edge e : edges) if (e.from.equals(id)) out.add(e);
    return out;
  }
}
