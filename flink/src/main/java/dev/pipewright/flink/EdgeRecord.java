package dev.pipewright.flink;

/**
 * A record on its way into an operator: which input edge it came by (its index in the plan's
 * `edges`), and its JSON text. An operator's input edges are unioned into one stream of these, so
 * the worker can tell ctx.input and the key selector can read each edge's own key path. A Flink
 * POJO (public fields, no-argument constructor): serialized without Kryo.
 */
public final class EdgeRecord {
  public int edge;
  public String text;

  public EdgeRecord() {}

  public EdgeRecord(int edge, String text) {
    this.edge = edge;
    this.text = text;
  }

  @Override
  public String toString() {
    return "EdgeRecord(" + edge + ", " + text + ")";
  }
}
