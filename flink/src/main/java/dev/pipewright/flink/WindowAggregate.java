package dev.pipewright.flink;

import java.io.IOException;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The window kind's built-in aggregates (engine/operators/window/builtinAggregates.ts) as Flink's
 * AggregateFunction: count, sum, min, max and avg of a field, added in the order records come,
 * in doubles as JavaScript adds them. The accumulator is {count, sum, min, max}.
 */
final class WindowAggregate implements AggregateFunction<EdgeRecord, double[], double[]> {
  private static final long serialVersionUID = 1L;

  private final String operatorId;
  private final String aggregate;
  /** The field's path; null for count. */
  private final String[] path;

  WindowAggregate(String operatorId, String aggregate, String[] path) {
    this.operatorId = operatorId;
    this.aggregate = aggregate;
    this.path = path;
  }

  @Override
  public double[] createAccumulator() {
    return new double[] {0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
  }

  @Override
  public double[] add(EdgeRecord record, double[] acc) {
    acc[0]++;
    if (path == null) return acc;
    double v = number(record.text);
    acc[1] += v;
    acc[2] = Math.min(acc[2], v);
    acc[3] = Math.max(acc[3], v);
    return acc;
  }

  @Override
  public double[] getResult(double[] acc) {
    return acc;
  }

  @Override
  public double[] merge(double[] a, double[] b) {
    return new double[] {a[0] + b[0], a[1] + b[1], Math.min(a[2], b[2]), Math.max(a[3], b[3])};
  }

  /** The aggregate's value of an accumulator. */
  double value(double[] acc) {
    return switch (aggregate) {
      case "count" -> acc[0];
      case "sum" -> acc[1];
      case "min" -> acc[2];
      case "max" -> acc[3];
      default -> acc[1] / acc[0];
    };
  }

  /** The number at `path`, or the job fails in the local engine's words. */
  private double number(String text) {
    String name = String.join(".", path);
    String got;
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      for (String field : path) {
        JsonToken found = null;
        if (t == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken value = p.nextToken();
            if (f.equals(field)) {
              found = value;
              break;
            }
            p.skipChildren();
          }
        }
        t = found;
        if (t == null) break;
      }
      if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) return p.getDoubleValue();
      if (t == null) {
        got = "the record has no such field";
      } else {
        String value = Json.MAPPER.writeValueAsString(p.readValueAsTree());
        got = "got " + (value.length() > 60 ? value.substring(0, 60) + "…" : value);
      }
    } catch (IOException e) {
      got = "the record is not JSON";
    }
    throw UserError.fail("operator \"" + operatorId + "\" failed: TypeError: field \"" + name
        + "\" must be a number to aggregate (" + got + ")");
  }
}
