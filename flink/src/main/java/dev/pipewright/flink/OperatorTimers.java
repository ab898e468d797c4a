package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimerService;

/**
 * A keyed worker operator's timers (PROTOCOL.md, "Timers and watermarks in the runner"): Flink's
 * internal timer service, written to by the worker's `te`, `tp`, `xe` and `xp` writes under the
 * key of the item that made them. While a watermark's timers fire, registrations wait until it
 * has fired them all, so a timer at or before the watermark fires at the next one, as locally.
 */
final class OperatorTimers {
  private final InternalTimerService<VoidNamespace> service;
  /** Sets the keyed backend's current key (the operator's setCurrentKey). */
  private final Consumer<Object> keys;
  private final String operatorId;
  private boolean advancing;
  /** Registrations made while {@link #advancing}: {key, op, ts}. */
  private final ArrayList<Object[]> deferred = new ArrayList<>();

  OperatorTimers(InternalTimerService<VoidNamespace> service, Consumer<Object> keys, String operatorId) {
    this.service = service;
    this.keys = keys;
    this.operatorId = operatorId;
  }

  /** Whether a write of the worker is a timer's (`te`, `tp`, `xe`, `xp`). */
  static boolean isTimerWrite(String op) {
    return op.length() == 2 && (op.charAt(0) == 't' || op.charAt(0) == 'x');
  }

  /** Applies a timer write of `key`; one that registers waits while a watermark's timers fire. */
  void write(Object key, String op, Object time) {
    long ts = wholeMs(time);
    if (advancing && op.charAt(0) == 't') deferred.add(new Object[] {key, op, ts});
    else apply(key, op, ts);
  }

  /** A watermark's timers start firing: registrations wait. */
  void beginAdvance() {
    advancing = true;
  }

  /** They have all fired: what waited is registered. */
  void endAdvance() {
    advancing = false;
    for (Object[] t : deferred) apply(t[0], (String) t[1], (Long) t[2]);
    deferred.clear();
  }

  /**
   * The processing-time timers still set, each as {key, ts}, in time order, deleted from the
   * service: the end of input fires them itself (as the local engine does).
   */
  List<Object[]> takeProcessingTimers(java.util.function.Supplier<Object> currentKey) throws Exception {
    ArrayList<Object[]> pending = new ArrayList<>();
    // The service sets the backend's key to each timer's before it calls back.
    service.forEachProcessingTimeTimer((namespace, ts) -> pending.add(new Object[] {currentKey.get(), ts}));
    pending.sort((a, b) -> Long.compare((Long) a[1], (Long) b[1]));
    for (Object[] p : pending) {
      keys.accept(p[0]);
      service.deleteProcessingTimeTimer(VoidNamespace.INSTANCE, (Long) p[1]);
    }
    return pending;
  }

  private void apply(Object key, String op, long ts) {
    keys.accept(key);
    switch (op) {
      case "te" -> service.registerEventTimeTimer(VoidNamespace.INSTANCE, ts);
      case "tp" -> service.registerProcessingTimeTimer(VoidNamespace.INSTANCE, ts);
      case "xe" -> service.deleteEventTimeTimer(VoidNamespace.INSTANCE, ts);
      default -> service.deleteProcessingTimeTimer(VoidNamespace.INSTANCE, ts);
    }
  }

  /** A timer's time in whole ms; a fraction, which the local engine takes, fails the job here. */
  private long wholeMs(Object value) {
    if (value instanceof Integer || value instanceof Long) return ((Number) value).longValue();
    double ms = ((Number) value).doubleValue();
    if (ms == Math.rint(ms) && Math.abs(ms) < 9.0e15) return (long) ms;
    throw UserError.fail("operator \"" + operatorId + "\": a timer at " + value
        + " ms cannot run on Flink, whose times are whole milliseconds");
  }
}
