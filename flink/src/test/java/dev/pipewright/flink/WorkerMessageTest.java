package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The worker's `made` answer (PROTOCOL.md, "A source in the worker") as the reader reads it. */
class WorkerMessageTest {
  private static WorkerMessage parse(String json) throws Exception {
    return WorkerMessage.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aMadeRecordWithoutATimeHasNone() throws Exception {
    WorkerMessage m = parse("{\"t\":\"made\",\"records\":[\"{}\",\"1\",\"[]\"],\"times\":[5,null,7]}");
    assertEquals(List.of("{}", "1", "[]"), m.out);
    assertEquals(5, m.outTime(0));
    assertEquals(WorkerMessage.NO_TIME, m.outTime(1));
    assertEquals(7, m.outTime(2));
  }

  @Test
  void madeWithoutTimesHasNoTimes() throws Exception {
    WorkerMessage m = parse("{\"t\":\"made\",\"records\":[\"{}\"]}");
    assertEquals(WorkerMessage.NO_TIME, m.outTime(0));
  }
}
