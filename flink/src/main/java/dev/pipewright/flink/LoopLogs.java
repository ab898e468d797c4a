package dev.pipewright.flink;

import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The loop logs open at one loop head subtask, by checkpoint (design note §1.5). Checkpoints may
 * overlap: snapshot N+1 can come before the tail's sentinel N, and a record taken then was in
 * flight at both cuts, so it goes into every open log. The tail sends sentinels in checkpoint order
 * through one queue, so a sentinel M means no sentinel below M will come: a log below M belongs to
 * a checkpoint the tail never reached (aborted), and is dropped. Only the task thread uses this.
 */
final class LoopLogs {
  private final TreeMap<Long, LoopLog> open = new TreeMap<>();

  /** A log opened in snapshotState joins; its checkpoint is newer than every open one. */
  void add(LoopLog log) {
    Map.Entry<Long, LoopLog> newest = open.lastEntry();
    if (newest != null && newest.getKey() >= log.checkpointId()) {
      log.abort();
      throw new IllegalStateException("loop log of checkpoint " + log.checkpointId()
          + " opened while that of checkpoint " + newest.getKey() + " is open");
    }
    open.put(log.checkpointId(), log);
  }

  /** A record taken from the loop: into every open log (none open: it is not logged). */
  void append(Object key, String edgeId, String text, long time) throws IOException {
    for (LoopLog log : open.values()) log.append(key, edgeId, text, time);
  }

  /** Whether a record taken now would be logged. */
  boolean isEmpty() {
    return open.isEmpty();
  }

  int openCount() {
    return open.size();
  }

  /**
   * The tail's sentinel M came: log M is written (its entries are returned), and logs below M are
   * dropped, their sentinels never to come. Logs above M stay open. Returns -1 when no log M was open
   * (its checkpoint was aborted here first).
   */
  int sentinel(long m) throws IOException {
    int written = -1;
    for (Iterator<LoopLog> it = open.headMap(m, true).values().iterator(); it.hasNext(); ) {
      LoopLog log = it.next();
      it.remove();
      if (log.checkpointId() == m) written = log.commit();
      else log.abort();
    }
    return written;
  }

  /** Checkpoint N was aborted (notifyCheckpointAborted): its log, if open, is dropped. */
  void aborted(long n) {
    LoopLog log = open.remove(n);
    if (log != null) log.abort();
  }

  /** The operator closes (or fails): every lease goes, so no asynchronous part waits for it. */
  void abortAll() {
    for (LoopLog log : open.values()) log.abort();
    open.clear();
  }
}
