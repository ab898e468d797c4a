package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pipewright.flink.PgRows.PgValue;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * sink.postgres's statements and array literals, against what the local insertStatements.ts and
 * arrayLiteral.ts give for the same rows (printed by Node; `$n` placeholders are `?` here).
 */
class PgStatementsTest {
  private static final PgTable TABLE;

  static {
    Map<String, PgTable.Column> columns = new LinkedHashMap<>();
    columns.put("k", new PgTable.Column("k", "text", "text"));
    columns.put("n", new PgTable.Column("n", "integer", "integer"));
    columns.put("v", new PgTable.Column("v", "character varying(6)", "character varying"));
    columns.put("a", new PgTable.Column("a", "integer[]", "integer[]"));
    TABLE = new PgTable("public.t", columns, List.of(List.of("k")));
  }

  private static PgValue s(String text) {
    return new PgValue(text, true);
  }

  private static PgValue n(String text) {
    return new PgValue(text, false);
  }

  @SafeVarargs
  private static Map<String, PgValue> row(Map.Entry<String, PgValue>... fields) {
    Map<String, PgValue> row = new LinkedHashMap<>();
    for (Map.Entry<String, PgValue> f : fields) row.put(f.getKey(), f.getValue());
    return row;
  }

  @Test
  void arrayLiteralsQuoteStringsOnly() {
    assertEquals("{1,\"a\\\"b\\\\c\",NULL,true,\"plain\"}",
        PgStatements.arrayLiteral(List.of(n("1"), s("a\"b\\c"), PgValue.NULL, n("true"), s("plain"))));
    assertEquals("{1,2.5}", PgStatements.arrayLiteral(List.of(n("1"), n("2.5"))));
    assertEquals("{\"a\",\"b\"}", PgStatements.arrayLiteral(List.of(s("a"), s("b"))));
    assertEquals("{}", PgStatements.arrayLiteral(List.of()));
  }

  @Test
  void rowsOfTheSameColumnsGoInOneUnnestStatementInFirstSeenOrder() {
    List<PgStatements.Insert> inserts = PgStatements.inserts(TABLE, List.of(
        row(Map.entry("n", n("1")), Map.entry("k", s("x"))),
        row(Map.entry("k", s("y")), Map.entry("v", s("q"))),
        row(Map.entry("k", s("z")), Map.entry("n", n("2")))), List.of("k"));
    assertEquals(2, inserts.size());
    assertEquals("INSERT INTO public.t (\"k\",\"n\") SELECT * FROM unnest(?::text[], ?::integer[]) "
        + "ON CONFLICT (\"k\") DO UPDATE SET \"n\" = EXCLUDED.\"n\"", inserts.get(0).text());
    assertEquals(List.of("{\"x\",\"z\"}", "{1,2}"), inserts.get(0).parameters());
    assertEquals("INSERT INTO public.t (\"k\",\"v\") SELECT * FROM unnest(?::text[], ?::character varying[]) "
        + "ON CONFLICT (\"k\") DO UPDATE SET \"v\" = EXCLUDED.\"v\"", inserts.get(1).text());
    assertEquals(List.of("{\"y\"}", "{\"q\"}"), inserts.get(1).parameters());
  }

  @Test
  void keysAloneDoNothingOnConflictAndArrayColumnsUseValues() {
    List<PgStatements.Insert> keysOnly = PgStatements.inserts(TABLE, List.of(row(Map.entry("k", s("x")))), List.of("k"));
    assertEquals("INSERT INTO public.t (\"k\") SELECT * FROM unnest(?::text[]) ON CONFLICT (\"k\") DO NOTHING",
        keysOnly.get(0).text());
    List<PgStatements.Insert> arrays = PgStatements.inserts(TABLE, List.of(
        row(Map.entry("k", s("x")), Map.entry("a", s("{1}"))),
        row(Map.entry("k", s("y")), Map.entry("a", PgValue.NULL))), null);
    assertEquals("INSERT INTO public.t (\"a\",\"k\") VALUES (?,?),(?,?)", arrays.get(0).text());
    assertEquals(Arrays.asList("{1}", "x", null, "y"), arrays.get(0).parameters());
  }

  @Test
  void aGroupIsCutAtTheRowsPerStatement() {
    List<Map<String, PgValue>> rows = new java.util.ArrayList<>();
    for (int i = 0; i < PgStatements.ROWS_PER_STATEMENT + 1; i++) rows.add(row(Map.entry("k", s("k" + i))));
    List<PgStatements.Insert> inserts = PgStatements.inserts(TABLE, rows, null);
    assertEquals(2, inserts.size());
    assertEquals(1, inserts.get(1).columnValues().get(0).size());
  }
}
