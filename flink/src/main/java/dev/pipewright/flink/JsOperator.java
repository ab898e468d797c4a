package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ArrayList;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * A `map`, `filter`, `flatMap` or `process` operator: each subtask runs the user's code in one
 * worker process (PROTOCOL.md, "The worker pipe") and this operator is its Flink side.
 *
 * <p>Records gather into a batch ({@link GatheringBatch}), sent when it holds `batch.records`
 * records, when `batch.latencyMs` has passed since its first record (a processing-time timer),
 * before each checkpoint barrier and at the end of input; so nothing a checkpoint covers is still
 * in a worker. Two batches may be out at the worker while a third gathers, so the worker finds the
 * next batch waiting when it answers one (PROTOCOL.md, "Two batches in flight"). The worker's
 * frames reach this thread through the task's mailbox (a mail per frame), so an answer is taken
 * up even when no record comes.
 *
 * <p>A watermark empties the worker first only where an `onTimer` may see what it fires (a keyed
 * operator whose code has one): its timers then fire through the worker before it goes on.
 * Otherwise it travels among the records and goes downstream at its place among the outputs.
 *
 * <p>The worker's `read` requests are of the oldest batch out, and are answered from the keyed
 * state with every earlier batch's writes applied. `done`'s writes are applied in order, each
 * under its record's key, then its outputs emitted in order: port `out` as the main output, other
 * ports as side outputs ({@link PortOutputs}). The value states sent in `s` are read when a batch is
 * sent, without the writes of a batch still out, which the worker carries over. (PyFlink's Python
 * operators work alike: a process per subtask, batches over a pipe.)
 */
public final class JsOperator extends AbstractStreamOperator<String>
    implements OneInputStreamOperator<EdgeRecord, String>, Triggerable<Object, VoidNamespace> {
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
  /** Whether a feedback edge comes into this operator: LoopHead is chained before it. */
  private final boolean loopHead;

  private transient WorkerProcess worker;
  private transient KeyedStates states;
  private transient PortOutputs outputs;
  private transient StringBuilder frame;

  /** The batch gathering for the worker. */
  private transient GatheringBatch batch;
  /**
   * The batches out at the worker, oldest first: each one's keys, by item index. The worker
   * answers in order, and its reads are of the oldest batch (it finished the ones before).
   */
  private transient ArrayDeque<Object[]> outKeys;
  /** Key arrays of answered batches, for the next gathering ones. */
  private transient ArrayDeque<Object[]> spareKeys;
  /** The latency timer of the gathering batch fired while {@link #IN_FLIGHT} batches were out. */
  private transient boolean sendWhenAnswered;
  /** Batches sent; a latency timer set for an earlier batch does nothing. */
  private transient long batchesSent;
  /**
   * Value state names sent in `s` (those the worker has read), each with its JSON form
   * `"name":`, written once.
   */
  private transient LinkedHashMap<String, String> prefetch;
  /** Set once the input is done and the last batch answered: the worker may then exit cleanly. */
  private transient boolean finished;
  /** A keyed operator's timers (Flink's, in keyed state); null when not keyed. */
  private transient OperatorTimers timers;
  /** The operator's watermark (ctx.watermark), Long.MIN_VALUE before the first. */
  private transient long watermark;
  /**
   * Whether watermarks travel among the records instead of emptying the worker first: when no
   * `onTimer` can see what a watermark fires (an unkeyed operator, or code without one). Each
   * goes downstream at its place among the outputs, which the worker marks (PROTOCOL.md,
   * "Watermarks among the records").
   */
  private transient boolean watermarksInBand;
  /** The watermarks sent among the records and not yet answered, oldest first. */
  private transient ArrayDeque<Long> watermarksOut;
  /**
   * A loop head after TELL (design note §1.4): its input is over but loop records still come, and
   * the timers they set fire as soon as their batch is answered, as the local engine's final
   * firing fires them, so no timer is left pending at a cut.
   */
  private transient boolean draining;
  /** While draining: an answered batch wrote a timer, which is to fire at the next safe point. */
  private transient boolean timersDue;
  /** This subtask's entry in LoopMembers (a loop head), to leave it on close. */
  private transient LoopMembers.Member member;

  /**
   * Batches out at once: while the worker runs one, the next is already in its pipe, so it never
   * waits for the runner to apply an answer and read the next batch's state (the bench's
   * finding). The worker carries the values it wrote into the next batch, since that batch's
   * `s` was read before they were applied (PROTOCOL.md, "Two batches in flight").
   */
  private static final int IN_FLIGHT = 2;

  public JsOperator(Plan.Operator operator, String[] edgeIds, List<String> inputJsons, boolean keyed,
      Plan plan, List<String> sidePorts, boolean loopHead) {
    this.operator = operator;
    this.loopHead = loopHead;
    this.edgeIds = edgeIds;
    this.inputJsons = new ArrayList<>(inputJsons);
    this.keyed = keyed;
    this.workerCommand = new ArrayList<>(plan.workerCommand);
    this.batchRecords = plan.batchRecords;
    this.latencyMs = plan.batchLatencyMs;
    this.jobName = plan.jobName;
    this.sidePorts = new ArrayList<>(sidePorts);
  }

  @Override
  public void open() throws Exception {
    super.open();
    frame = new StringBuilder(1 << 16);
    batch = new GatheringBatch(batchRecords, keyed, edgeIds);
    outKeys = new ArrayDeque<>(IN_FLIGHT);
    spareKeys = new ArrayDeque<>(IN_FLIGHT);
    watermark = Long.MIN_VALUE;
    watermarksOut = new ArrayDeque<>();
    prefetch = new LinkedHashMap<>();
    outputs = new PortOutputs(output, sidePorts);
    if (keyed) {
      states = new KeyedStates(getKeyedStateStore());
      timers = new OperatorTimers(
          getInternalTimerService("pipewright-timers", VoidNamespaceSerializer.INSTANCE, this),
          this::setCurrentKey, operator.id);
    }

    var task = getRuntimeContext().getTaskInfo();
    int subtask = task.getIndexOfThisSubtask();
    worker = WorkerProcess.start(BundledWorker.command(workerCommand), "worker of operator \"" + operator.id + "\" subtask " + subtask);
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
        case "ready" -> watermarksInBand = !(keyed && reply.onTimer);
        case "error" -> throw UserError.fail(reply.message);
        default -> throw new IOException("the worker answered `open` with \"" + reply.t + "\"");
      }
    } catch (Exception e) {
      // Flink may not close an operator whose open failed: the worker goes now.
      worker.close(false);
      worker = null;
      throw e;
    }
    MailboxExecutor mailbox =
        getContainingTask().getMailboxExecutorFactory().createExecutor(getOperatorConfig().getChainIndex());
    worker.onFrame(() -> mailbox.execute(this::takeFrames, "pipewright worker frame"));
    if (loopHead) {
      member = this::loopInputEnded;
      LoopMembers.register(getRuntimeContext().getJobInfo().getJobId(), operator.id, subtask,
          task.getAttemptNumber(), member);
    }
  }

  @Override
  public void processElement(StreamRecord<EdgeRecord> element) throws Exception {
    EdgeRecord record = element.getValue();
    long time = element.hasTimestamp() ? element.getTimestamp() : WorkerMessage.NO_TIME;
    // Flink has set the backend's key to this record's (it runs the key selector per record).
    Object key = keyed ? getCurrentKey() : null;
    batch.add(GatheringBatch.RECORD, record.edge, record.text, time, key, watermark);
    gathered();
    if (timersDue) fireAllTimers();
  }

  @Override
  public void onEventTime(InternalTimer<Object, VoidNamespace> timer) throws Exception {
    timerFired(GatheringBatch.EVENT_TIMER, timer.getTimestamp());
  }

  @Override
  public void onProcessingTime(InternalTimer<Object, VoidNamespace> timer) throws Exception {
    timerFired(GatheringBatch.PROCESSING_TIMER, timer.getTimestamp());
  }

  /** A timer of the current key fired: it joins the gathering batch among the records. */
  private void timerFired(byte kind, long ts) throws Exception {
    batch.add(kind, -1, null, ts, getCurrentKey(), watermark);
    gathered();
  }

  /** An item has joined the gathering batch: the latency timer starts, and a full batch goes. */
  private void gathered() throws Exception {
    if (batch.size() == 1 && latencyMs > 0) {
      long batchNumber = batchesSent;
      var time = getProcessingTimeService();
      time.registerTimer(time.getCurrentProcessingTime() + latencyMs, t -> {
        if (batchesSent != batchNumber || batch.isEmpty()) return;
        if (outKeys.size() >= IN_FLIGHT) sendWhenAnswered = true;
        else send();
      });
    }
    if (batch.isFull()) {
      // At most IN_FLIGHT batches out and one gathering: the worker's pace holds the input.
      while (outKeys.size() >= IN_FLIGHT) handle(worker.receive());
      send();
    }
  }

  /**
   * Sends the gathering batch (fewer than IN_FLIGHT out), reading the `s` states for its
   * records: as applied so far, without the writes of a batch still out.
   */
  private void send() throws Exception {
    if (batch.isEmpty()) return;
    batch.write(frame, this::appendStates);
    outKeys.addLast(batch.sent(spareKeys.pollFirst()));
    batchesSent++;
    sendWhenAnswered = false;
    worker.send(frame);
  }

  /** A record's `s`: the value states the worker has read, under its key, as applied so far. */
  private void appendStates(StringBuilder b, Object key) throws Exception {
    if (prefetch.isEmpty()) return;
    setCurrentKey(key);
    boolean first = true;
    for (Map.Entry<String, String> state : prefetch.entrySet()) {
      if (!first) b.append(',');
      first = false;
      KeyedStates.appendText(b.append(state.getValue()), states.value(state.getKey()).value());
    }
  }

  /** Takes the frames that have come (a mail per frame from the worker's reader thread). */
  private void takeFrames() throws Exception {
    if (worker == null) return; // closed already
    for (byte[] f; !outKeys.isEmpty() && (f = worker.poll()) != null; ) handle(f);
    if (outKeys.size() < IN_FLIGHT && sendWhenAnswered) send();
    if (timersDue) fireAllTimers();
  }

  /** Waits for the answers to every batch out, serving their reads. */
  private void awaitAnswer() throws Exception {
    while (!outKeys.isEmpty()) handle(worker.receive());
  }

  /** Sends what has gathered and waits for every answer: before barriers, watermarks, the end. */
  private void drain() throws Exception {
    awaitAnswer();
    if (!batch.isEmpty()) {
      send();
      awaitAnswer();
    }
  }

  private void handle(byte[] bytes) throws Exception {
    WorkerMessage m = WorkerMessage.parse(bytes);
    if (outKeys.isEmpty() && !"error".equals(m.t)) {
      throw new IOException("the worker sent \"" + m.t + "\" with no batch out");
    }
    switch (m.t) {
      case "read" -> worker.send(answer(m));
      case "done" -> {
        apply(m);
        Object[] answered = outKeys.pollFirst();
        Arrays.fill(answered, null);
        spareKeys.addLast(answered);
      }
      case "error" -> throw UserError.fail(m.message);
      default -> throw new IOException("the worker answered a batch with \"" + m.t + "\"");
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
    setCurrentKey(outKeys.peekFirst()[m.i]);
    if ("value".equals(m.what) && !prefetch.containsKey(m.name)) prefetch.put(m.name, Json.quote(m.name) + ":");
    return states.answer(m.what, m.name, m.mk);
  }

  private void apply(WorkerMessage m) throws Exception {
    if (!m.writes.isEmpty()) {
      if (!keyed) throw new IOException("the worker wrote state for an operator that is not keyed");
      Object[] batchKeys = outKeys.peekFirst();
      for (Object[] write : m.writes) {
        Object key = batchKeys[(Integer) write[0]];
        String op = (String) write[1];
        if (OperatorTimers.isTimerWrite(op)) {
          timers.write(key, op, write[2]);
          if (draining) timersDue = true;
          continue;
        }
        setCurrentKey(key);
        states.apply(write);
      }
    }
    outputs.emit(m, watermarksOut);
  }

  /**
   * Records before the watermark leave before it; then, keyed, its event-time timers fire
   * through the worker (as batches); then it goes on (PROTOCOL.md, "Timers and watermarks").
   */
  @Override
  public void processWatermark(Watermark mark) throws Exception {
    if (watermarksInBand) watermarkAmongRecords(mark);
    else drain();
    watermark = mark.getTimestamp();
    advanceTimers(mark);
    // Among the records, it goes on when the worker's answer reaches its place (apply).
    if (!watermarksInBand) output.emitWatermark(mark);
  }

  /**
   * A keyed operator's event-time timers due at `mark` fire into the gathering batch; where an
   * `onTimer` sees them, the worker runs them before the watermark goes on. (Without one, a
   * timer the code set fires into nothing, as locally.)
   */
  private void advanceTimers(Watermark mark) throws Exception {
    if (timeServiceManager == null || timers == null) return;
    timers.beginAdvance();
    try {
      timeServiceManager.advanceWatermark(mark);
      if (!watermarksInBand) drain();
    } finally {
      timers.endAdvance();
    }
  }

  /**
   * No `onTimer` can see what the watermark fires, so nothing needs to wait for the worker: the
   * watermark joins the gathering batch in its place (the worker's ctx.watermark changes there)
   * and goes downstream when the answer reaches its place, after the outputs of the records
   * before it and before those after it.
   */
  private void watermarkAmongRecords(Watermark mark) throws Exception {
    watermarksOut.addLast(mark.getTimestamp());
    // Before `watermark` moves: a batch this item starts says the watermark before it.
    batch.add(GatheringBatch.WATERMARK, -1, null, mark.getTimestamp(), null, watermark);
    gathered();
  }

  /**
   * Nothing a checkpoint covers is left in the worker; a draining loop head also fires every timer
   * until none is pending, so the loop's ending rule may take the cut's empty log as the truth.
   */
  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    if (draining) fireAllTimers();
    else drain();
    super.prepareSnapshotPreBarrier(checkpointId);
  }

  /**
   * TELL, from the LoopHead chained before this (design note §1.4): every regular input ended and
   * the loop was empty at a cut, so the final firing runs now, as the local engine's does when its
   * loop head is told its input ended: the worker is drained, the event-time timers set since the
   * final watermark fire (the service is advanced to the end again) and the pending processing-time
   * timers fire as finish() fires them. From then on, timers that loop records set fire as soon as
   * their batch is answered.
   */
  void loopInputEnded() throws Exception {
    draining = true;
    fireAllTimers();
  }

  /** Drains, then fires every timer, again until firing sets none (a draining loop head). */
  private void fireAllTimers() throws Exception {
    do {
      timersDue = false;
      drain();
      if (timers == null) return;
      advanceTimers(new Watermark(Long.MAX_VALUE));
      drain();
      firePendingProcessingTimers();
    } while (timersDue);
  }

  @Override
  public void finish() throws Exception {
    drain();
    firePendingProcessingTimers();
    finished = true;
    super.finish();
  }

  /**
   * The end of input: Flink's final watermark has fired every event-time timer; the
   * processing-time ones still pending fire now, in time order, as the local engine fires them
   * at the end (and those they set, in turn).
   */
  private void firePendingProcessingTimers() throws Exception {
    if (timers == null) return;
    for (List<Object[]> pending; !(pending = timers.takeProcessingTimers(this::getCurrentKey)).isEmpty(); ) {
      for (Object[] p : pending) {
        setCurrentKey(p[0]);
        timerFired(GatheringBatch.PROCESSING_TIMER, (Long) p[1]);
      }
      drain();
    }
  }

  @Override
  public void close() throws Exception {
    // Called on success and on failure alike: the worker never outlives its subtask.
    try {
      if (member != null) {
        var task = getRuntimeContext().getTaskInfo();
        LoopMembers.unregister(getRuntimeContext().getJobInfo().getJobId(), operator.id,
            task.getIndexOfThisSubtask(), task.getAttemptNumber(), member);
        member = null;
      }
      if (worker != null) worker.close(finished);
    } finally {
      worker = null;
      super.close();
    }
  }
}
