package dev.pipewright.flink;

import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;

/**
 * Part file names that sort in the order a sink subtask wrote them. FileSink names a part
 * `PREFIX-<random uuid>-<counter>`: no subtask index, and a new uuid with a counter from 0 each
 * time a subtask's writer starts its bucket anew (after every restart), so its own names give no
 * order. FileSink asks for the prefix once per new part, so the prefix carries the time it was
 * made and a sequence number: `part-<ms since epoch, 13 digits>-<sequence, 9 digits>-<uuid>-<counter>`.
 * Joined in name order, a subtask's parts come in the order it wrote them, before and after a
 * restart (which starts at least the restart delay later); parts of several subtasks of one sink
 * interleave by time, as their records do.
 */
final class PartNames extends OutputFileConfig {
  private static final long serialVersionUID = 1L;

  /** Each subtask has its own copy (deserialized with the sink); these restart with it. */
  private transient long lastMs;
  private transient long sequence;

  PartNames() {
    super("part", "");
  }

  @Override
  public synchronized String getPartPrefix() {
    // Never backwards within a subtask, even if the wall clock is set back.
    lastMs = Math.max(lastMs, System.currentTimeMillis());
    return String.format("part-%013d-%09d", lastMs, sequence++);
  }
}
