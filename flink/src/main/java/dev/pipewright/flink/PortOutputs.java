package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Where a worker's `done` outputs go, in order: port `out` to the operator's main output, other
 * ports to side outputs ({@link #tag}), each with its event time or none, and a watermark sent
 * among the records at its place (PROTOCOL.md, "Watermarks among the records").
 */
final class PortOutputs {
  private final Output<StreamRecord<String>> output;
  /** The side outputs an edge reads, by port; a port no edge reads is dropped. */
  private final Map<String, OutputTag<String>> tags = new HashMap<>();
  /** One record object for the main output, as Flink's operators reuse theirs. */
  private final StreamRecord<String> reuse = new StreamRecord<>(null);

  PortOutputs(Output<StreamRecord<String>> output, List<String> sidePorts) {
    this.output = output;
    for (String port : sidePorts) tags.put(port, tag(port));
  }

  /** The side output of `port`: the operator emits to it, JobBuilder reads it by the same id. */
  static OutputTag<String> tag(String port) {
    return new OutputTag<>("port:" + port, Types.STRING);
  }

  /**
   * Emits `m`'s outputs in order; a null text is the place of the oldest of `watermarksOut`
   * (the watermarks sent among the records and not yet placed).
   */
  void emit(WorkerMessage m, ArrayDeque<Long> watermarksOut) throws IOException {
    ArrayList<String> texts = m.out;
    ArrayList<String> ports = m.outPorts;
    for (int j = 0, n = texts.size(); j < n; j++) {
      String text = texts.get(j);
      if (text == null) {
        Long mark = watermarksOut.pollFirst();
        if (mark == null) throw new IOException("the worker placed a watermark that was not sent");
        output.emitWatermark(new Watermark(mark));
        continue;
      }
      String port = ports.get(j);
      long ts = m.outTime(j);
      if (port == null || "out".equals(port)) {
        output.collect(ts == WorkerMessage.NO_TIME ? untimed(text) : reuse.replace(text, ts));
      } else {
        OutputTag<String> tag = tags.get(port);
        if (tag == null) continue; // no edge reads the port
        output.collect(tag, ts == WorkerMessage.NO_TIME ? new StreamRecord<>(text) : new StreamRecord<>(text, ts));
      }
    }
  }

  /** `reuse` holding `text` and no time (replace keeps the time the record before had). */
  private StreamRecord<String> untimed(String text) {
    reuse.replace(text);
    reuse.eraseTimestamp();
    return reuse;
  }
}
