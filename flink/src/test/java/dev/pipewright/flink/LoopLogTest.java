package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateInitializationContextImpl;
import org.apache.flink.runtime.state.StateSnapshotContextSynchronousImpl;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.junit.jupiter.api.Test;

/**
 * The loop log through Flink's own snapshot and restore classes, without a cluster: the raw keyed
 * stream of StateSnapshotContextSynchronousImpl (memory checkpoint streams), its closing future
 * (the asynchronous part, which waits for the lease), and restore by key group offsets as Flink's
 * StreamTaskStateInitializerImpl does it (one stream per file, sought per group).
 */
class LoopLogTest {
  private static final int MAX = 128;

  /** A snapshot of one subtask: its raw keyed stream and the asynchronous part that closes it. */
  private static final class Snapshot {
    final StateSnapshotContextSynchronousImpl ctx;

    Snapshot(long checkpointId, KeyGroupRange range) {
      ctx = new StateSnapshotContextSynchronousImpl(checkpointId, 0, new MemCheckpointStreamFactory(16 << 20),
          range, new CloseableRegistry());
    }

    LoopLog open() throws Exception {
      return LoopLog.open(ctx, MAX);
    }

    /**
     * Runs the asynchronous part, which returns only once every lease is released (a lease still
     * held fails the test by timing out instead of hanging it).
     */
    KeyGroupsStateHandle close() throws Exception {
      RunnableFuture<SnapshotResult<KeyedStateHandle>> future = ctx.getKeyedStateStreamFuture();
      Thread async = new Thread(future, "async part");
      async.setDaemon(true);
      async.start();
      return (KeyGroupsStateHandle) future.get(10, TimeUnit.SECONDS).getJobManagerOwnedSnapshot();
    }
  }

  private record Entry(int keyGroup, String edge, String text, long time) {}

  /** Replays `handles` into a subtask owning `range`, as Flink restores raw keyed state. */
  private static List<Entry> replay(KeyGroupRange range, KeyGroupsStateHandle... handles) throws Exception {
    List<Entry> entries = new ArrayList<>();
    long n = LoopLog.replay(restoreContext(range, handles), (g, e, t, ts) -> entries.add(new Entry(g, e, t, ts)));
    assertEquals(entries.size(), n);
    return entries;
  }

  private static StateInitializationContext restoreContext(KeyGroupRange range, KeyGroupsStateHandle... handles) {
    Iterable<KeyGroupStatePartitionStreamProvider> inputs = () -> new Iterator<>() {
      private int handle = -1;
      private Iterator<Map.Entry<Integer, Long>> offsets = List.<Map.Entry<Integer, Long>>of().iterator();
      private FSDataInputStream stream;

      @Override
      public boolean hasNext() {
        try {
          while (!offsets.hasNext() && ++handle < handles.length) {
            KeyGroupsStateHandle part = handles[handle].getIntersection(range);
            TreeMap<Integer, Long> set = new TreeMap<>();
            if (part != null) {
              for (var o : part.getGroupRangeOffsets()) if (o.f1 >= 0) set.put(o.f0, o.f1);
            }
            offsets = set.entrySet().iterator();
            stream = part == null ? null : part.openInputStream();
          }
          return offsets.hasNext();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public KeyGroupStatePartitionStreamProvider next() {
        if (!hasNext()) throw new NoSuchElementException();
        Map.Entry<Integer, Long> o = offsets.next();
        try {
          stream.seek(o.getValue()); // one stream for the file's groups, as Flink's own iterator
        } catch (IOException e) {
          return new KeyGroupStatePartitionStreamProvider(e, o.getKey());
        }
        return new KeyGroupStatePartitionStreamProvider(stream, o.getKey());
      }
    };
    // Flink hands raw keyed inputs to keyed operators only; this store is never read.
    KeyedStateStore keyed = (KeyedStateStore) Proxy.newProxyInstance(LoopLogTest.class.getClassLoader(),
        new Class<?>[] {KeyedStateStore.class}, (proxy, method, args) -> {
          throw new UnsupportedOperationException(method.getName());
        });
    return new StateInitializationContextImpl(1L, null, keyed, inputs, List.of());
  }

  private static int group(Object key) {
    return KeyGroupRangeAssignment.assignToKeyGroup(key, MAX);
  }

  @Test
  void replaysEachKeyGroupInAppendOrderAndWritesEveryGroupOfTheRange() throws Exception {
    Snapshot s = new Snapshot(7, KeyGroupRange.of(0, MAX - 1));
    LoopLog log = s.open();
    List<Entry> appended = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Object key = i % 3 == 0 ? "k" + (i % 11) : Integer.valueOf(i % 13);
      long time = i % 4 == 0 ? LoopLog.NO_TIME : i * 10L - 500;
      String edge = i % 2 == 0 ? "back" : "fb2";
      log.append(key, edge, "{\"i\":" + i + "}", time);
      appended.add(new Entry(group(key), edge, "{\"i\":" + i + "}", time));
    }
    assertEquals(200, log.size());
    assertEquals(200, log.commit());
    KeyGroupsStateHandle handle = s.close();
    for (int g = 0; g < MAX; g++) assertTrue(handle.getOffsetForKeyGroup(g) >= 0, "group " + g + " not written");
    List<Entry> replayed = replay(KeyGroupRange.of(0, MAX - 1), handle);
    // Flink hands groups in key group order; within one, the append order holds.
    List<Entry> expected = new ArrayList<>(appended);
    expected.sort((a, b) -> Integer.compare(a.keyGroup, b.keyGroup)); // stable: keeps append order
    assertEquals(expected, replayed);
  }

  @Test
  void textsOver64KbAndLoneSurrogatesComeBackAsTheyWere() throws Exception {
    StringBuilder big = new StringBuilder();
    for (int i = 0; i < 80_000; i++) {
      big.append(i % 7 == 0 ? "é€" : "x").append(i % 1000 == 0 ? "\uD83D\uDE00" : "");
    }
    List<String> texts = List.of(big.toString(), "\uD800", "a\uDC00b", "\uDBFF\uDFFF", "z\uDBFF", "\uDFFF\uD800",
        "", "\u0000\u07FF\u0800\uFFFF");
    Snapshot s = new Snapshot(1, KeyGroupRange.of(0, MAX - 1));
    LoopLog log = s.open();
    for (String t : texts) log.append("k", "e\uD801", t, 5);
    log.commit();
    List<String> back = new ArrayList<>();
    for (Entry e : replay(KeyGroupRange.of(0, MAX - 1), s.close())) {
      assertEquals("e\uD801", e.edge);
      back.add(e.text);
    }
    assertEquals(texts, back);
    assertTrue(Wtf8.encode(big.toString()).length > 65_535);
  }

  @Test
  void wellFormedTextIsWrittenAsItsUtf8Bytes() throws Exception {
    String s = "a é € \uD83D\uDE00 \u0000";
    assertEquals(new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1),
        new String(Wtf8.encode(s), StandardCharsets.ISO_8859_1));
    assertThrows(IOException.class, () -> Wtf8.decode(new byte[] {(byte) 0xE2, (byte) 0x82}, 0, 2));
  }

  @Test
  void theAsynchronousPartWaitsUntilTheLogIsCommitted() throws Exception {
    Snapshot s = new Snapshot(3, KeyGroupRange.of(0, MAX - 1));
    LoopLog log = s.open();
    RunnableFuture<SnapshotResult<KeyedStateHandle>> future = s.ctx.getKeyedStateStreamFuture();
    Thread async = new Thread(future, "async part");
    async.start();
    log.append(1, "e", "late", LoopLog.NO_TIME);
    // It can only finish once the lease is released: it has not, however long it is given.
    assertThrows(TimeoutException.class, () -> future.get(200, TimeUnit.MILLISECONDS));
    log.append(2, "e", "later", LoopLog.NO_TIME);
    log.commit();
    KeyGroupsStateHandle handle =
        (KeyGroupsStateHandle) future.get(10, TimeUnit.SECONDS).getJobManagerOwnedSnapshot();
    async.join();
    assertEquals(List.of("late", "later"),
        replay(KeyGroupRange.of(0, MAX - 1), handle).stream().map(Entry::text).sorted().toList());
  }

  @Test
  void overlappingLogsTakeRecordsFromTheirSnapshotToTheirSentinel() throws Exception {
    KeyGroupRange all = KeyGroupRange.of(0, MAX - 1);
    LoopLogs logs = new LoopLogs();
    logs.append("a", "e", "before any snapshot", LoopLog.NO_TIME);
    Snapshot s1 = new Snapshot(1, all);
    logs.add(s1.open());
    logs.append("a", "e", "r1", LoopLog.NO_TIME);
    Snapshot s2 = new Snapshot(2, all);
    logs.add(s2.open());
    logs.append("a", "e", "r2", LoopLog.NO_TIME);
    assertEquals(2, logs.openCount());
    assertEquals(2, logs.sentinel(1));
    assertEquals(1, logs.openCount());
    logs.append("a", "e", "r3", LoopLog.NO_TIME);
    Snapshot s3 = new Snapshot(3, all);
    logs.add(s3.open());
    logs.append("a", "e", "r4", LoopLog.NO_TIME);
    // Sentinel 3 before 2: checkpoint 2's will never come, so its log is dropped unwritten.
    assertEquals(1, logs.sentinel(3));
    assertTrue(logs.isEmpty());
    assertEquals(-1, logs.sentinel(4));
    assertEquals(List.of("r1", "r2"), replay(all, s1.close()).stream().map(Entry::text).toList());
    assertNull(s2.close()); // nothing written: no state handle
    assertEquals(List.of("r4"), replay(all, s3.close()).stream().map(Entry::text).toList());
    // Checkpoints are taken in order: an older one opening after a newer is a bug.
    logs.add(new Snapshot(7, all).open());
    assertThrows(IllegalStateException.class, () -> logs.add(new Snapshot(6, all).open()));
    logs.abortAll();
  }

  @Test
  void anAbortedLogReleasesItsLeaseAndWritesNothing() throws Exception {
    KeyGroupRange all = KeyGroupRange.of(0, MAX - 1);
    LoopLogs logs = new LoopLogs();
    Snapshot s5 = new Snapshot(5, all);
    Snapshot s6 = new Snapshot(6, all);
    logs.add(s5.open());
    logs.add(s6.open());
    logs.append("a", "e", "r", LoopLog.NO_TIME);
    logs.aborted(5);
    assertEquals(1, logs.openCount());
    logs.abortAll();
    assertTrue(logs.isEmpty());
    // Both asynchronous parts finish here (they would block if a lease were held). Nothing was
    // written, so the raw keyed stream gives no state handle at all.
    for (Snapshot s : List.of(s5, s6)) assertNull(s.close());
  }

  @Test
  void aKeyOutsideTheSubtasksKeyGroupsFailsTheJob() throws Exception {
    Snapshot s = new Snapshot(1, KeyGroupRange.of(0, 63));
    LoopLog log = s.open();
    int key = 0;
    while (group(key) < 64) key++;
    int outside = key;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> log.append(outside, "e", "x", 1));
    assertTrue(e.getMessage().contains("key group " + group(outside)), e.getMessage());
    log.abort();
  }

  @Test
  void aLogWrittenAtParallelismThreeReplaysAtItsNewOwnersAtTwo() throws Exception {
    List<KeyGroupsStateHandle> handles = new ArrayList<>();
    List<String> all = new ArrayList<>();
    for (int subtask = 0; subtask < 3; subtask++) {
      Snapshot s = new Snapshot(9, KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX, 3, subtask));
      LoopLog log = s.open();
      for (int k = 0; k < 300; k++) {
        if (KeyGroupRangeAssignment.assignKeyToParallelOperator("key" + k, MAX, 3) != subtask) continue;
        log.append("key" + k, "e", "key" + k, k);
        all.add("key" + k);
      }
      log.commit();
      handles.add(s.close());
    }
    List<String> replayed = new ArrayList<>();
    for (int subtask = 0; subtask < 2; subtask++) {
      KeyGroupRange range = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX, 2, subtask);
      for (Entry e : replay(range, handles.toArray(KeyGroupsStateHandle[]::new))) {
        assertEquals(subtask, LoopInternals.subtaskOf(group(e.text), MAX, 2), e.text);
        assertEquals(group(e.text), e.keyGroup);
        assertEquals(Long.parseLong(e.text.substring(3)), e.time);
        replayed.add(e.text);
      }
    }
    all.sort(null);
    replayed.sort(null);
    assertEquals(300, all.size());
    assertEquals(all, replayed);
  }

  @Test
  void anEmptyStreamIsNoLogAndForeignBytesFail() throws Exception {
    List<Entry> none = new ArrayList<>();
    assertEquals(0, LoopLog.readGroup(3, new ByteArrayInputStream(new byte[0]),
        (g, e, t, ts) -> none.add(new Entry(g, e, t, ts))));
    assertEquals(List.of(), none);
    IOException e = assertThrows(IOException.class,
        () -> LoopLog.readGroup(3, new ByteArrayInputStream(new byte[] {0, 0, 0, 1, 2, 3, 4, 5}),
            (g, ed, t, ts) -> {}));
    assertTrue(e.getMessage().contains("not a Pipewright loop log"), e.getMessage());
  }
}
