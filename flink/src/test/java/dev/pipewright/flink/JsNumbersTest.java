package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Numbers as JavaScript's String(n) writes them (the texts below are node's). */
class JsNumbersTest {
  private static String js(double d) {
    return JsNumbers.append(new StringBuilder(), d).toString();
  }

  @Test
  void writesNumbersAsJavaScriptDoes() {
    assertEquals("3", js(3.0));
    assertEquals("-2", js(-2.0));
    assertEquals("0", js(-0.0));
    assertEquals("0.30000000000000004", js(0.1 + 0.2));
    assertEquals("-1.1", js(-1.1));
    assertEquals("123456789012345680000", js(123456789012345678901.0));
    assertEquals("1e+21", js(1e21));
    assertEquals("1.5e+300", js(1.5e300));
    assertEquals("0.000001", js(1e-6));
    assertEquals("1e-7", js(1e-7));
    assertEquals("1.23e-18", js(123e-20));
    assertEquals("5e-324", js(Double.MIN_VALUE));
    assertEquals("1234.5678", js(1234.5678));
    assertEquals("9007199254740992", js(9007199254740992.0));
    assertEquals("null", js(Double.NaN));
  }
}
