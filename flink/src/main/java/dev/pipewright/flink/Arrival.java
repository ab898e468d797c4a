package dev.pipewright.flink;

/**
 * A record on its way into a session window with a code aggregate: its place in the order the
 * window's subtask took its records in (`seq`), its event time, and the record (its edge and
 * text). Flink merges the record lists of merging sessions in no particular order, and its window
 * function sees no times; the worker needs both to replay the merges the local engine made
 * (CodeWindows). A Flink POJO: serialized without Kryo.
 */
public final class Arrival {
  public long seq;
  public long ts;
  public int edge;
  public String text;

  public Arrival() {}

  public Arrival(long seq, long ts, int edge, String text) {
    this.seq = seq;
    this.ts = ts;
    this.edge = edge;
    this.text = text;
  }

  @Override
  public String toString() {
    return "Arrival(" + seq + ", " + ts + ", " + edge + ", " + text + ")";
  }
}
