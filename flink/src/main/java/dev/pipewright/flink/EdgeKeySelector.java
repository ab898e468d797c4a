package dev.pipewright.flink;

import org.apache.flink.api.java.functions.KeySelector;

/**
 * The key of a record for an operator whose inputs are all hash edges: each edge has its own key
 * path, so the selector looks the record's edge up (by its index in the plan's edges) and reads
 * that edge's key. Flink hashes the returned value's hashCode into a key group, which is why
 * Keys makes it the Java type keyGroups.ts assumes.
 */
public final class EdgeKeySelector implements KeySelector<EdgeRecord, Object> {
  private static final long serialVersionUID = 1L;

  /** Indexed like the plan's edges; null for an edge that is not an input of this operator. */
  private final Plan.Edge[] edges;

  public EdgeKeySelector(Plan.Edge[] edges) {
    this.edges = edges;
  }

  @Override
  public Object getKey(EdgeRecord record) {
    return Keys.read(record.text, edges[record.edge]);
  }
}
