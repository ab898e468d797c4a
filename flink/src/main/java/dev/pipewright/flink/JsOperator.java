package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * A `map`, `filter`, `flatMap` or `process` operator: each subtask runs the user's code in one
 * worker process (PROTOCOL.md, "The worker pipe") and this operator is its Flink side. Records
 * are batched into one `batch` frame, sent when it holds `batch.records` records, when
 * `batch.latencyMs` has passed since its first record (a processing-time timer), before each
 * checkpoint barrier and at the end of input, so nothing a checkpoint covers is still in a
 * worker. While a batch is out, the worker's `read` requests are answered from the keyed state as
 * it was when the batch began (writes wait for `done`); then `done`'s writes are applied in order,
 * each under its record's key, and its outputs emitted in order: the default port `out` as the
 * main output, other ports as side outputs (see {@link #tag}).
 *
 * <p>The per-record path only appends to one StringBuilder: the record's text is embedded as it
 * is, the key written by {@link Keys#appendJson}, known value states read from the backend.
 * (PyFlink's Python operators work the same way: a process per subtask, batches over a pipe.)
 */
public final class JsOperator extends AbstractStreamOperator<String>
    implements OneInputStreamOperator<EdgeRecord, String> {
  private static final long serialVersionUID = 1L;

  private final Plan.Operator operator;
  /** Input edge ids by their index in the plan's edges (what EdgeRecord.edge holds). */
  private final String[] edgeIds;
  /** The `inputs` of the `open` frame: the input edges' JSON. */
  private final List<String> inputJsons;
  private final boolean keyed;
  private final List<String> workerCommand;
  private final int batchRecords;
  private final long latencyMs;
  private final String jobName;
  /** Ports other than `out` that an edge reads. */
  private final List<String> sidePorts;

  /** Each input edge's id as a JSON string literal, ready to append (by plan edge index). */
  private transient String[] quotedEdgeIds;
  private transient WorkerProcess worker;
  private transient KeyedStates states;
  private transient Map<String, OutputTag<String>> tags;
  private transient StreamRecord<String> reuse;
  /** The `batch` frame being built. */
  private transient StringBuilder batch;
  private transient int count;
  /** The keys of the batch's records, by index (keyed operators). */
  private transient ArrayList<Object> keys;
  /**
   * Value state names sent in `s` with each record (those the worker has read), each with its
   * JSON form `"name":`, written once.
   */
  private transient LinkedHashMap<String, String> prefetch;
  /** Counts batches sent, so a latency timer set for an earlier batch does nothing. */
  private transient long batchesSent;
  /** Set once the input is done and the last batch answered: the worker may then exit cleanly. */
  private transient boolean finished;

  public JsOperator(Plan.Operator operator, String[] edgeIds, List<String> inputJsons, boolean keyed,
      Plan plan, List<String> sidePorts) {
    this.operator = operator;
    this.edgeIds = edgeIds;
    this.inputJsons = new ArrayList<>(inputJsons);
    this.keyed = keyed;
    this.workerCommand = new ArrayList<>(plan.workerCommand);
    this.batchRecords = plan.batchRecords;
    this.latencyMs = plan.batchLatencyMs;
    this.jobName = plan.jobName;
    this.sidePorts = new ArrayList<>(sidePorts);
  }

  /** The side output of `port`: the operator emits to it, JobBuilder reads it by the same id. */
  public static OutputTag<String> tag(String port) {
    return new OutputTag<>("port:" + port, Types.STRING);
  }

  @Override
  public void open() throws Exception {
    super.open();
    batch = new StringBuilder(1 << 16);
    keys = new ArrayList<>();
    prefetch = new LinkedHashMap<>();
    reuse = new StreamRecord<>(null);
    quotedEdgeIds = new String[edgeIds.length];
    for (int i = 0; i < edgeIds.length; i++) if (edgeIds[i] != null) quotedEdgeIds[i] = Json.quote(edgeIds[i]);
    tags = new HashMap<>();
    for (String port : sidePorts) tags.put(port, tag(port));
    if (keyed) states = new KeyedStates(getKeyedStateStore());

    var task = getRuntimeContext().getTaskInfo();
    int subtask = task.getIndexOfThisSubtask();
    worker = WorkerProcess.start(workerCommand,
        "worker of operator \"" + operator.id + "\" subtask " + subtask);
    StringBuilder open = new StringBuilder(256 + operator.json.length());
    open.append("{\"t\":\"open\",\"operator\":").append(operator.json).append(",\"inputs\":[");
    open.append(String.join(",", inputJsons)).append("],\"subtask\":").append(subtask);
    open.append(",\"parallelism\":").append(task.getNumberOfParallelSubtasks());
    open.append(",\"maxParallelism\":").append(task.getMaxNumberOfParallelSubtasks());
    open.append(",\"keyed\":").append(keyed).append(",\"jobName\":");
    Json.appendString(open, jobName).append('}');
    try {
      worker.send(open);
      WorkerMessage reply = WorkerMessage.parse(worker.receive());
      switch (reply.t) {
        case "ready" -> { }
        case "error" -> throw UserError.fail(reply.message);
        default -> throw new java.io.IOException("the worker answered `open` with \"" + reply.t + "\"");
      }
    } catch (Exception e) {
      // Flink may not close an operator whose open failed: the worker goes now.
      worker.close(false);
      worker = null;
      throw e;
    }
  }

  @Override
  public void processElement(StreamRecord<EdgeRecord> element) throws Exception {
    EdgeRecord record = element.getValue();
    StringBuilder b = batch;
    if (count == 0) {
      b.setLength(0);
      b.append("{\"t\":\"batch\",\"records\":[");
      if (latencyMs > 0) {
        long batchNumber = batchesSent;
        var time = getProcessingTimeService();
        time.registerTimer(time.getCurrentProcessingTime() + latencyMs, t -> {
          if (batchesSent == batchNumber && count > 0) flush();
        });
      }
    } else {
      b.append(',');
    }
    b.append("{\"e\":").append(quotedEdgeIds[record.edge]);
    if (keyed) {
      // Flink has set the backend's key to this record's (it runs the key selector per record).
      Object key = getCurrentKey();
      keys.add(key);
      Keys.appendJson(b.append(",\"k\":"), key);
      b.append(",\"r\":").append(record.text).append(",\"s\":{");
      boolean first = true;
      for (Map.Entry<String, String> state : prefetch.entrySet()) {
        if (!first) b.append(',');
        first = false;
        KeyedStates.appendText(b.append(state.getValue()), states.value(state.getKey()).value());
      }
      b.append("}}");
    } else {
      b.append(",\"r\":").append(record.text).append('}');
    }
    if (++count >= batchRecords) flush();
  }

  /** Sends the batch, serves its reads, applies its writes and emits its outputs. */
  private void flush() throws Exception {
    if (count == 0) return;
    batch.append("]}");
    count = 0;
    batchesSent++;
    worker.send(batch);
    for (;;) {
      WorkerMessage m = WorkerMessage.parse(worker.receive());
      switch (m.t) {
        case "read" -> worker.send(answer(m));
        case "done" -> {
          apply(m);
          keys.clear();
          return;
        }
        case "error" -> throw UserError.fail(m.message);
        default -> throw new java.io.IOException("the worker answered a batch with \"" + m.t + "\"");
      }
    }
  }

  private String answer(WorkerMessage m) throws Exception {
    if (!keyed) {
      // The worker refuses state without keyed inputs itself; answer as an empty state would.
      return switch (m.what) {
        case "mapEntries" -> "{\"t\":\"entries\",\"entries\":[]}";
        case "list" -> "{\"t\":\"list\",\"values\":[]}";
        default -> "{\"t\":\"value\",\"v\":null}";
      };
    }
    setCurrentKey(keys.get(m.i));
    if ("value".equals(m.what) && !prefetch.containsKey(m.name)) prefetch.put(m.name, Json.quote(m.name) + ":");
    return states.answer(m.what, m.name, m.mk);
  }

  private void apply(WorkerMessage m) throws Exception {
    if (!m.writes.isEmpty()) {
      if (!keyed) throw new java.io.IOException("the worker wrote state for an operator that is not keyed");
      for (Object[] write : m.writes) {
        setCurrentKey(keys.get((Integer) write[0]));
        states.apply(write);
      }
    }
    ArrayList<String> out = m.out;
    ArrayList<String> ports = m.outPorts;
    for (int j = 0, n = out.size(); j < n; j++) {
      String port = ports.get(j);
      if (port == null || "out".equals(port)) {
        output.collect(reuse.replace(out.get(j)));
      } else {
        OutputTag<String> tag = tags.get(port);
        if (tag != null) output.collect(tag, new StreamRecord<>(out.get(j))); // else no edge reads it
      }
    }
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    flush(); // records before the watermark leave before it
    super.processWatermark(mark);
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    flush();
    super.prepareSnapshotPreBarrier(checkpointId);
  }

  @Override
  public void finish() throws Exception {
    flush();
    finished = true;
    super.finish();
  }

  @Override
  public void close() throws Exception {
    // Called on success and on failure alike: the worker never outlives its subtask.
    try {
      if (worker != null) worker.close(finished);
    } finally {
      worker = null;
      super.close();
    }
  }
}
