package dev.pipewright.flink;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A double as JavaScript's Number#toString writes it (ECMA-262, Number::toString), so a number
 * the runner computes in Java (a window's sum or average) reads as the local engine writes it:
 * `3` not `3.0`, `1e+21` not `1.0E21`, `1e-7` not `1.0E-7`. The digits are the fewest that
 * read back as the same double, the closest such to it (as JavaScript picks them; Java 17's
 * Double.toString sometimes gives one more: `4.9E-324` for JavaScript's `5e-324`).
 */
final class JsNumbers {
  private JsNumbers() {}

  static StringBuilder append(StringBuilder out, double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) return out.append("null"); // JSON.stringify's
    if (d == 0) return out.append('0');
    if (d == Math.rint(d) && Math.abs(d) < 1e15) return out.append((long) d);
    BigDecimal exact = shortest(Math.abs(d)).stripTrailingZeros();
    String digits = exact.unscaledValue().toString();
    int k = digits.length();
    int n = k - exact.scale(); // the decimal point's place: value = 0.digits × 10^n
    if (d < 0) out.append('-');
    if (k <= n && n <= 21) {
      out.append(digits);
      for (int i = k; i < n; i++) out.append('0');
    } else if (0 < n && n <= 21) {
      out.append(digits, 0, n).append('.').append(digits, n, k);
    } else if (-6 < n && n <= 0) {
      out.append("0.");
      for (int i = n; i < 0; i++) out.append('0');
      out.append(digits);
    } else {
      out.append(digits.charAt(0));
      if (k > 1) out.append('.').append(digits, 1, k);
      int e = n - 1;
      out.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
    }
    return out;
  }

  /** The decimal of fewest significant digits that reads back as `d`, the closest such. */
  private static BigDecimal shortest(double d) {
    BigDecimal exact = new BigDecimal(d);
    for (int digits = 1; digits < 17; digits++) {
      BigDecimal rounded = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
      if (rounded.doubleValue() == d) return rounded;
    }
    return exact.round(new MathContext(17, RoundingMode.HALF_EVEN));
  }
}
