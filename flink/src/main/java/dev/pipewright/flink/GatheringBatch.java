package dev.pipewright.flink;

/**
 * The batch a {@link JsOperator} is gathering for its worker, and how it is written as a `batch`
 * frame (PROTOCOL.md, "The worker pipe"). Its items are records, timers that fired (they join
 * among the records, in order) and, where watermarks travel among the records, watermarks.
 *
 * <p>Plain arrays, filled in place and reused batch after batch: a record costs no allocation
 * here. The keys are the exception: the operator keeps each sent batch's keys until its answer
 * has come (its reads and writes are by item index), so {@link #sent} hands them over and takes
 * a spare array in their place.
 */
final class GatheringBatch {
  static final byte RECORD = 0;
  static final byte EVENT_TIMER = 1;
  static final byte PROCESSING_TIMER = 2;
  static final byte WATERMARK = 3;

  /** Appends a key's `s`: the value states the worker reads, as read for that key now. */
  interface StateReader {
    void appendStates(StringBuilder frame, Object key) throws Exception;
  }

  private final int capacity;
  private final boolean keyed;
  /** Each input edge's id as a JSON string literal, by plan edge index (EdgeRecord.edge). */
  private final String[] quotedEdgeIds;

  private final byte[] kinds;
  private final int[] edges;
  private final String[] texts;
  private final long[] times;
  private Object[] keys;
  private int count;
  /** The operator's watermark when the first item came: the batch's `w`. */
  private long watermark = Long.MIN_VALUE;

  GatheringBatch(int capacity, boolean keyed, String[] edgeIds) {
    this.capacity = capacity;
    this.keyed = keyed;
    quotedEdgeIds = new String[edgeIds.length];
    for (int i = 0; i < edgeIds.length; i++) {
      if (edgeIds[i] != null) quotedEdgeIds[i] = Json.quote(edgeIds[i]);
    }
    kinds = new byte[capacity];
    edges = new int[capacity];
    texts = new String[capacity];
    times = new long[capacity];
    keys = new Object[capacity];
  }

  int size() {
    return count;
  }

  boolean isEmpty() {
    return count == 0;
  }

  boolean isFull() {
    return count >= capacity;
  }

  /**
   * Adds an item; `watermark` is the operator's as it comes (the batch keeps its first item's).
   * `time` is WorkerMessage.NO_TIME for a record without one; `key` null where unkeyed.
   */
  void add(byte kind, int edge, String text, long time, Object key, long watermark) {
    int i = count++;
    if (i == 0) this.watermark = watermark;
    kinds[i] = kind;
    edges[i] = edge;
    texts[i] = text;
    times[i] = time;
    keys[i] = key;
  }

  /** Writes the batch as a `batch` frame into `b` (cleared first), reading `s` through `states`. */
  void write(StringBuilder b, StateReader states) throws Exception {
    b.setLength(0);
    b.append("{\"t\":\"batch\",");
    if (watermark != Long.MIN_VALUE) b.append("\"w\":").append(watermark).append(',');
    b.append("\"records\":[");
    for (int i = 0; i < count; i++) {
      if (i > 0) b.append(',');
      byte kind = kinds[i];
      if (kind == WATERMARK) {
        b.append("{\"wm\":").append(times[i]).append('}');
        continue;
      }
      if (kind == RECORD) {
        b.append("{\"e\":").append(quotedEdgeIds[edges[i]]);
        if (times[i] != WorkerMessage.NO_TIME) b.append(",\"ts\":").append(times[i]);
      } else {
        b.append("{\"timer\":\"").append(kind == EVENT_TIMER ? 'e' : 'p');
        b.append("\",\"ts\":").append(times[i]);
      }
      if (keyed) {
        Keys.appendJson(b.append(",\"k\":"), keys[i]);
        b.append(",\"s\":{");
        states.appendStates(b, keys[i]);
        b.append('}');
      }
      if (kind == RECORD) b.append(",\"r\":").append(texts[i]);
      b.append('}');
    }
    b.append("]}");
  }

  /**
   * The batch has gone: returns its keys by item index (held until its answer) and starts the
   * next batch empty, with `spare` (an answered batch's, cleared) or a new array for its keys.
   */
  Object[] sent(Object[] spare) {
    Object[] out = keys;
    keys = spare != null ? spare : new Object[capacity];
    java.util.Arrays.fill(texts, 0, count, null);
    count = 0;
    return out;
  }
}
