package dev.pipewright.flink;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Numbers the records of a session window's input in the order its subtask takes them, just
 * before the window operator (chained, on the same keys), so the worker can put a session's
 * records back in that order (Arrival). The number only has to grow within a key: it is a
 * counter per subtask, kept in operator state, and a restored subtask starts above the highest
 * any subtask had reached (union state), since rescaling may bring it keys of any of them.
 */
final class ArrivalOrder extends KeyedProcessFunction<Object, EdgeRecord, Arrival> implements CheckpointedFunction {
  private static final long serialVersionUID = 1L;

  private transient long next;
  private transient ListState<Long> reached;

  @Override
  public void processElement(EdgeRecord record, Context context, Collector<Arrival> out) {
    // The source gave it a time (a window needs one; the window operator says so when not).
    Long ts = context.timestamp();
    out.collect(new Arrival(next++, ts == null ? Long.MIN_VALUE : ts, record.edge, record.text));
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    reached.update(java.util.List.of(next));
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    reached = context.getOperatorStateStore()
        .getUnionListState(new ListStateDescriptor<>("pipewright-arrival", Types.LONG));
    next = 0;
    for (Long n : reached.get()) next = Math.max(next, n);
  }

  /** The key of an Arrival: its record's, read as the operator's edges read it. */
  static final class Key implements KeySelector<Arrival, Object> {
    private static final long serialVersionUID = 1L;
    private final KeySelector<EdgeRecord, Object> edges;

    Key(KeySelector<EdgeRecord, Object> edges) {
      this.edges = edges;
    }

    @Override
    public Object getKey(Arrival arrival) throws Exception {
      return edges.getKey(new EdgeRecord(arrival.edge, arrival.text));
    }
  }
}
