package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * source.postgres's values against the local engine's (pgValues.ts): the expected fragments are
 * what JSON.stringify(valueParser(oid)(text)) printed in Node for the same text.
 */
class PgValuesTest {
  @Test
  void numbersWhereJavaScriptsAreExact() {
    assertEquals("42", PgValues.json(PgValues.INT4, "42"));
    assertEquals("-32768", PgValues.json(PgValues.INT2, "-32768"));
    assertEquals("4294967295", PgValues.json(PgValues.OID, "4294967295"));
    assertEquals("1.5", PgValues.json(PgValues.FLOAT8, "1.5"));
    assertEquals("0.1", PgValues.json(PgValues.FLOAT4, "0.1"));
    assertEquals("1e+21", PgValues.json(PgValues.FLOAT8, "1e+21"));
    assertEquals("1.2345678901234566e-7", PgValues.json(PgValues.FLOAT8, "1.2345678901234567e-07"));
    assertEquals("0", PgValues.json(PgValues.FLOAT8, "-0"));
    assertEquals("\"NaN\"", PgValues.json(PgValues.FLOAT8, "NaN"));
    assertEquals("\"-Infinity\"", PgValues.json(PgValues.FLOAT4, "-Infinity"));
  }

  @Test
  void bigNumbersStayText() {
    assertEquals("\"9007199254740993\"", PgValues.json(20, "9007199254740993"));
    assertEquals("\"12.340\"", PgValues.json(1700, "12.340"));
  }

  @Test
  void booleansJsonAndNull() {
    assertEquals("true", PgValues.json(PgValues.BOOL, "t"));
    assertEquals("false", PgValues.json(PgValues.BOOL, "f"));
    assertEquals("{\"a\":[1,\"x y\"],\"b\":null}", PgValues.json(PgValues.JSON, "{ \"a\" : [1, \"x y\"], \"b\": null }"));
    assertEquals("{\"a\":1}", PgValues.json(PgValues.JSONB, "{\"a\": 1}"));
    // A json column keeps its text: JSON.parse then JSON.stringify, as the local record is written.
    assertEquals("{\"1\":2.5,\"b\":1e+21,\"a\":3}", PgValues.json(PgValues.JSON, "{\"b\": 1E21, \"1\": 2.50, \"a\": 1, \"a\": 3}"));
    assertEquals("null", PgValues.json(PgValues.INT4, null));
  }

  @Test
  void timestampsAsIso() {
    assertEquals("\"2024-01-02T03:04:05.123456\"", PgValues.json(PgValues.TIMESTAMP, "2024-01-02 03:04:05.123456"));
    assertEquals("\"2024-01-02T03:04:05.5Z\"", PgValues.json(PgValues.TIMESTAMPTZ, "2024-01-02 03:04:05.5+00"));
    assertEquals("\"2024-01-02T03:04:05+05:30\"", PgValues.json(PgValues.TIMESTAMPTZ, "2024-01-02 03:04:05+05:30"));
    assertEquals("\"infinity\"", PgValues.json(PgValues.TIMESTAMPTZ, "infinity"));
    assertEquals("\"44-03-15 12:00:00 BC\"", PgValues.json(PgValues.TIMESTAMP, "44-03-15 12:00:00 BC"));
  }

  @Test
  void everythingElseAsText() {
    assertEquals("\"2024-01-02\"", PgValues.json(1082, "2024-01-02"));
    assertEquals("\"\\\\x00ff\"", PgValues.json(17, "\\x00ff"));
    assertEquals("\"{1,2}\"", PgValues.json(1007, "{1,2}"));
    assertEquals("\"quote \\\" é\"", PgValues.json(25, "quote \" é"));
  }
}
