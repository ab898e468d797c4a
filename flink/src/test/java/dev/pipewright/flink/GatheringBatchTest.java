package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The `batch` frame the worker reads (PROTOCOL.md, "The worker pipe"), written by the batch. */
class GatheringBatchTest {
  private static final String[] EDGES = {null, "e1", "e\"2"};

  @Test
  void writesRecordsTimersAndWatermarksInOrderWithTheirKeysAndStates() throws Exception {
    GatheringBatch batch = new GatheringBatch(8, true, EDGES);
    batch.add(GatheringBatch.RECORD, 1, "{\"k\":\"a\"}", WorkerMessage.NO_TIME, "a", 5);
    batch.add(GatheringBatch.RECORD, 2, "[1]", 42, 7, 6);
    batch.add(GatheringBatch.EVENT_TIMER, -1, null, 99, List.of("a", 1), 6);
    batch.add(GatheringBatch.PROCESSING_TIMER, -1, null, 100, true, 6);
    batch.add(GatheringBatch.WATERMARK, -1, null, 50, null, 6);
    List<Object> asked = new ArrayList<>();
    StringBuilder frame = new StringBuilder("left over");
    batch.write(frame, (b, key) -> {
      asked.add(key);
      b.append("\"n\":").append(asked.size());
    });
    assertEquals("{\"t\":\"batch\",\"w\":5,\"records\":["
        + "{\"e\":\"e1\",\"k\":\"a\",\"s\":{\"n\":1},\"r\":{\"k\":\"a\"}},"
        + "{\"e\":\"e\\\"2\",\"ts\":42,\"k\":7,\"s\":{\"n\":2},\"r\":[1]},"
        + "{\"timer\":\"e\",\"ts\":99,\"k\":[\"a\",1],\"s\":{\"n\":3}},"
        + "{\"timer\":\"p\",\"ts\":100,\"k\":true,\"s\":{\"n\":4}},"
        + "{\"wm\":50}]}", frame.toString());
    assertEquals(List.of("a", 7, List.of("a", 1), true), asked);
  }

  @Test
  void anUnkeyedBatchBeforeAnyWatermarkHasNoKeysStatesOrW() throws Exception {
    GatheringBatch batch = new GatheringBatch(2, false, EDGES);
    batch.add(GatheringBatch.RECORD, 1, "1", WorkerMessage.NO_TIME, null, Long.MIN_VALUE);
    StringBuilder frame = new StringBuilder();
    batch.write(frame, (b, key) -> {
      throw new AssertionError("no state is read for an unkeyed operator");
    });
    assertEquals("{\"t\":\"batch\",\"records\":[{\"e\":\"e1\",\"r\":1}]}", frame.toString());
  }

  @Test
  void sendingHandsTheKeysOverAndStartsTheNextBatchEmpty() throws Exception {
    GatheringBatch batch = new GatheringBatch(2, true, EDGES);
    batch.add(GatheringBatch.RECORD, 1, "1", WorkerMessage.NO_TIME, "a", 1);
    assertFalse(batch.isFull());
    batch.add(GatheringBatch.RECORD, 1, "2", WorkerMessage.NO_TIME, "b", 2);
    assertTrue(batch.isFull());
    Object[] spare = new Object[2];
    Object[] keys = batch.sent(spare);
    assertArrayEquals(new Object[] {"a", "b"}, keys);
    assertTrue(batch.isEmpty());

    // The next batch's keys go into the spare array, and its `w` is its own first item's.
    batch.add(GatheringBatch.RECORD, 1, "3", WorkerMessage.NO_TIME, "c", 9);
    StringBuilder frame = new StringBuilder();
    batch.write(frame, (b, key) -> {});
    assertEquals("{\"t\":\"batch\",\"w\":9,\"records\":[{\"e\":\"e1\",\"k\":\"c\",\"s\":{},\"r\":3}]}", frame.toString());
    assertSame(spare, batch.sent(null));
    assertEquals("c", spare[0]);
    assertNull(spare[1]);
  }
}
