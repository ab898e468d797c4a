package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/**
 * Keys must hash as engine/graph/keyGroups.ts's javaHashCode does, or Flink would put a key in
 * another key group than the local engine: the expected hashCodes are that implementation's.
 */
class KeysTest {
  private static Plan.Edge edge(String key) throws Exception {
    String keyJson = key.startsWith("[") ? key : "\"" + key + "\"";
    Plan plan = Plan.parse("{\"format\":\"pipewright.flink-plan/1\",\"maxParallelism\":128,"
        + "\"checkpointIntervalMs\":1000,\"operators\":[],\"edges\":[{\"id\":\"e1\",\"from\":\"a\","
        + "\"to\":\"b\",\"partition\":\"hash\",\"key\":" + keyJson + "}],\"sinkDirs\":{}}");
    return plan.edges.get(0);
  }

  private static Object key(String record, String path) throws Exception {
    return Keys.read(record, edge(path));
  }

  @Test
  void hashCodesMatchTheTypeScriptImplementation() throws Exception {
    assertEquals(99162322, key("{\"k\":\"hello\"}", "k").hashCode());
    assertEquals(42, key("{\"k\":42}", "k").hashCode());
    assertEquals(256, key("{\"k\":1099511627776}", "k").hashCode()); // 2**40, Long.hashCode
    assertEquals(1073217536, key("{\"k\":1.5}", "k").hashCode());
    assertEquals(1231, key("{\"k\":true}", "k").hashCode());
    assertEquals(1237, key("{\"k\":false}", "k").hashCode());
    assertEquals(3969, key("{\"k\":[\"a\",1]}", "k").hashCode()); // List.hashCode
    assertEquals(3969, key("{\"a\":\"a\",\"b\":1}", "[\"a\",\"b\"]").hashCode()); // composite
  }

  @Test
  void numbersAreJavaScriptNumbers() throws Exception {
    assertEquals(Integer.valueOf(1), key("{\"k\":1.0}", "k"));
    assertEquals(Integer.valueOf(0), key("{\"k\":-0}", "k"));
    assertEquals(Integer.valueOf(0), key("{\"k\":-0.0}", "k"));
    assertEquals(Integer.valueOf(1000), key("{\"k\":1e3}", "k"));
    assertEquals(Integer.valueOf(Integer.MIN_VALUE), key("{\"k\":-2147483648}", "k"));
    assertEquals(Long.valueOf(2147483648L), key("{\"k\":2147483648}", "k"));
    assertEquals(Long.valueOf(9007199254740991L), key("{\"k\":9007199254740991}", "k"));
    assertEquals(Double.valueOf(9007199254740992.0), key("{\"k\":9007199254740992}", "k"));
    assertEquals(Double.valueOf(1e300), key("{\"k\":1e300}", "k"));
    assertEquals(Double.valueOf(1e30), key("{\"k\":1000000000000000000000000000000}", "k"));
  }

  @Test
  void pathsFollowObjectsAndArrayIndexes() throws Exception {
    assertEquals("x", key("{\"a\":{\"skip\":[1,{\"b\":2}],\"b\":\"x\"}}", "a.b"));
    assertEquals("y", key("{\"a\":[\"x\",\"y\"]}", "a.1"));
    assertEquals(List.of("p", 2), key("{\"a\":{\"b\":\"p\"},\"c\":2}", "[\"a.b\",\"c\"]"));
  }

  @Test
  void missingNullAndObjectKeysFailWithoutRestarts() throws Exception {
    Plan.Edge e = edge("a.b");
    for (String record : List.of("{\"a\":{}}", "{\"a\":{\"b\":null}}", "{}", "[1]", "\"s\"", "{\"a\":3}")) {
      SuppressRestartsException x = assertThrows(SuppressRestartsException.class, () -> Keys.read(record, e));
      assertInstanceOf(UserError.class, x.getCause());
      assertEquals("edge \"e1\" is partitioned by \"a.b\", but the record has no such field", x.getCause().getMessage());
    }
    SuppressRestartsException x =
        assertThrows(SuppressRestartsException.class, () -> Keys.read("{\"a\":{\"b\":{\"c\":1}}}", e));
    assertTrue(x.getCause().getMessage().contains("keys that are objects cannot run on Flink yet"),
        x.getCause().getMessage());
  }

  @Test
  void keysGoBackToTheWorkerAsJson() throws Exception {
    StringBuilder b = new StringBuilder();
    for (String r : List.of("{\"k\":\"q\\\"\"}", "{\"k\":42}", "{\"k\":1099511627776}", "{\"k\":1.5}",
        "{\"k\":true}", "{\"k\":[\"a\",[1,null]]}")) {
      Keys.appendJson(b, key(r, "k")).append(' ');
    }
    assertEquals("\"q\\\"\" 42 1099511627776 1.5 true [\"a\",[1,null]] ", b.toString());
  }

  @Test
  void keyGroupsAreFlinksForTheseValues() throws Exception {
    // The same function Flink's hash partitioner calls; keyGroups.ts implements it bit for bit.
    Object hello = key("{\"k\":\"hello\"}", "k");
    assertEquals(KeyGroupRangeAssignment.assignToKeyGroup("hello", 128),
        KeyGroupRangeAssignment.assignToKeyGroup(hello, 128));
  }
}
