package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.pipewright.flink.PgRows.PgValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;

/**
 * sink.postgres's records as rows, against what the local sink makes of them (sinkRow.ts; the
 * expected texts are what Node printed for the same input: JSON.stringify(JSON.parse(text)),
 * String(number)).
 */
class PgRowsTest {
  private static final PgTable TABLE = new PgTable("public.t", columns(
      new PgTable.Column("k", "text", "text"),
      new PgTable.Column("n", "integer", "integer"),
      new PgTable.Column("doc", "json", "json"),
      new PgTable.Column("meta", "jsonb", "jsonb"),
      new PgTable.Column("note", "text", "text")), List.of(List.of("k")));

  private static Map<String, PgTable.Column> columns(PgTable.Column... cs) {
    Map<String, PgTable.Column> map = new LinkedHashMap<>();
    for (PgTable.Column c : cs) map.put(c.name(), c);
    return map;
  }

  private static Map<String, PgValue> row(String text) throws Exception {
    return PgRows.toRow(text, TABLE, "t", "out");
  }

  private static String failure(String text) {
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class, () -> row(text));
    return e.getCause().getMessage();
  }

  @Test
  void valuesAreWhatNodePostgresSendsForTheJavaScriptValue() throws Exception {
    Map<String, PgValue> r = row("{\"k\":\"a\\\"b\",\"n\":1.0,\"note\":true}");
    assertEquals(new PgValue("a\"b", true), r.get("k"));
    assertEquals(new PgValue("1", false), r.get("n"));
    assertEquals(new PgValue("true", false), r.get("note"));
    assertEquals(new PgValue("12345678901234567000", false), row("{\"n\":12345678901234567890}").get("n"));
    assertEquals(new PgValue("1e-7", false), row("{\"n\":1e-7}").get("n"));
    assertEquals(new PgValue("12345600", false), row("{\"n\":123.456e5}").get("n"));
    assertEquals(PgValue.NULL, row("{\"n\":null}").get("n"));
  }

  @Test
  void objectsAndArraysAreJsonStringifysTextAndJsonColumnsTakeEveryValueAsJson() throws Exception {
    String object = "{\"b\":1,\"10\":3,\"2\":2,\"a\":[1.0,1e21,0.1,-0,\"x\\u0001\\\"y\"],\"b\":{\"z\":null,\"y\":true},"
        + "\"4294967295\":5}";
    String stringified = "{\"2\":2,\"10\":3,\"b\":{\"z\":null,\"y\":true},\"a\":[1,1e+21,0.1,0,\"x\\u0001\\\"y\"],"
        + "\"4294967295\":5}";
    assertEquals(new PgValue(stringified, true), row("{\"note\":" + object + "}").get("note"));
    assertEquals(new PgValue(stringified, true), row("{\"doc\":" + object + "}").get("doc"));
    assertEquals(new PgValue("\"s\"", true), row("{\"meta\":\"s\"}").get("meta"));
    assertEquals(new PgValue("1", true), row("{\"meta\":1.0}").get("meta"));
    assertEquals(new PgValue("[1,\"x\"]", true), row("{\"note\":[1, \"x\"]}").get("note"));
    assertEquals(PgValue.NULL, row("{\"doc\":null}").get("doc"));
  }

  @Test
  void fieldsComeInJavaScriptsKeyOrderAndAnUnknownOneIsTheLocalLine() throws Exception {
    assertEquals(List.of("k", "n"), List.copyOf(row("{\"k\":\"a\",\"n\":1}").keySet()));
    assertEquals("operator \"out\": field \"x\" is not a column of table \"t\"", failure("{\"k\":\"a\",\"x\":1}"));
    // "1" is an array index: JavaScript lists it first, so it is the field found missing.
    assertEquals("operator \"out\": field \"1\" is not a column of table \"t\"", failure("{\"x\":1,\"1\":2}"));
  }

  @Test
  void aRecordThatIsNoObjectIsTheLocalLine() {
    String prefix = "operator \"out\": a record for table \"t\" must be an object (its fields are the columns), not ";
    assertEquals(prefix + "an array", failure("[1]"));
    assertEquals(prefix + "\"s\"", failure("\"s\""));
    assertEquals(prefix + "1", failure("1.0"));
    assertEquals(prefix + "null", failure("null"));
  }

  @Test
  void upsertKeysTellOneFromTheStringOneAndAMissingKeyIsTheLocalLine() throws Exception {
    List<String> k = List.of("k");
    assertEquals(PgRows.keyOf(row("{\"k\":1}"), k, "t", "out"), PgRows.keyOf(row("{\"k\":1.0}"), k, "t", "out"));
    assertNotEquals(PgRows.keyOf(row("{\"k\":1}"), k, "t", "out"), PgRows.keyOf(row("{\"k\":\"1\"}"), k, "t", "out"));
    assertNotEquals(PgRows.keyOf(row("{\"k\":\"a\",\"n\":1}"), List.of("k", "n"), "t", "out"),
        PgRows.keyOf(row("{\"k\":\"a\",\"n\":\"1\"}"), List.of("k", "n"), "t", "out"));
    Map<String, PgValue> noKey = row("{\"n\":1}");
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class, () -> PgRows.keyOf(noKey, k, "t", "out"));
    assertEquals("operator \"out\": a record for table \"t\" has no key column \"k\"", e.getCause().getMessage());
    Map<String, PgValue> nullKey = row("{\"k\":null}");
    e = assertThrows(SuppressRestartsException.class, () -> PgRows.keyOf(nullKey, k, "t", "out"));
    assertEquals("operator \"out\": a record for table \"t\" has a null key column \"k\"", e.getCause().getMessage());
  }
}
