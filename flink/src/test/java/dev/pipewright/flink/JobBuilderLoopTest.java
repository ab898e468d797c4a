package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * JobBuilder on a plan with a loop (owner-has-items' shape, design note §1.1), built but not run:
 * the loop's three operators by their uids at the head's parallelism, LoopHead and the head's
 * worker operator in one task, the three tasks in one co-location group, and no cycle in Flink's
 * graph (the feedback edge ends at the tail).
 */
class JobBuilderLoopTest {
  private static final String PLAN = """
      {"format":"pipewright.flink-plan/1","jobName":"owner-has-items","maxParallelism":128,
       "checkpointIntervalMs":100,"worker":{"command":["node","{worker}"]},
       "operators":[
         {"id":"events","kind":"source.jsonl","parallelism":1,"params":{"path":"/nowhere/events.jsonl"}},
         {"id":"owners","kind":"process","parallelism":4,"params":{"code":"function process() {}"}},
         {"id":"out","kind":"sink.jsonl","parallelism":1,"params":{"path":"/nowhere/out.jsonl"}}],
       "edges":[
         {"id":"events-to-owners","from":"events","to":"owners","partition":"hash","key":"owner"},
         {"id":"transfer","from":"owners","fromPort":"transfer","to":"owners","partition":"hash",
          "key":"owner","feedback":true},
         {"id":"owners-to-out","from":"owners","to":"out","partition":"rebalance"}],
       "sinkDirs":{"out":"/nowhere/out"}}
      """;

  @Test
  void buildsTheLoopBesideItsHead() throws Exception {
    Plan plan = Plan.parse(PLAN);
    assertTrue(plan.hasLoop());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
        Runner.configuration(plan, null));
    env.setMaxParallelism(plan.maxParallelism);
    new JobBuilder(plan, env).build();
    StreamGraph graph = env.getStreamGraph();

    Map<String, StreamNode> byUid = new HashMap<>();
    for (StreamNode node : graph.getStreamNodes()) byUid.put(node.getTransformationUID(), node);
    for (String uid : List.of("owners", "owners/loop", "owners/loop-tail", "owners/loop-control")) {
      assertNotNull(byUid.get(uid), uid);
      assertEquals(4, byUid.get(uid).getParallelism(), uid);
    }
    // The feedback edge ends at the tail, tagged by its own map: nothing goes back to the head.
    assertEquals(List.of("edge/transfer"), upstreamUids(graph, byUid.get("owners/loop-tail")));
    List<String> intoHead = upstreamUids(graph, byUid.get("owners/loop"));
    intoHead.sort(null);
    assertEquals(List.of("edge/events-to-owners", "owners/loop-control"), intoHead);

    JobGraph job = graph.getJobGraph();
    JobVertex head = null;
    JobVertex tail = null;
    JobVertex control = null;
    List<JobVertex> others = new ArrayList<>();
    for (JobVertex v : job.getVertices()) {
      if (v.getName().startsWith("owners: loop ->")) head = v;
      else if (v.getName().startsWith("owners: loop tail")) tail = v;
      else if (v.getName().equals("Source: owners: loop control")) control = v;
      else others.add(v);
    }
    assertNotNull(head, "LoopHead and the worker operator in one task: " + names(job));
    // The feedback edge's tag (and the output's) chain after the worker operator, in the same task.
    assertTrue(head.getName().startsWith("owners: loop -> owners -> "), head.getName());
    assertNotNull(tail, names(job));
    assertNotNull(control, names(job));
    assertNotNull(head.getCoLocationGroup());
    assertSame(head.getCoLocationGroup(), tail.getCoLocationGroup());
    assertSame(head.getCoLocationGroup(), control.getCoLocationGroup());
    assertSame(head.getSlotSharingGroup(), tail.getSlotSharingGroup());
    assertSame(head.getSlotSharingGroup(), control.getSlotSharingGroup());
    for (JobVertex v : others) assertNull(v.getCoLocationGroup(), v.getName());
  }

  private static List<String> upstreamUids(StreamGraph graph, StreamNode node) {
    List<String> uids = new ArrayList<>();
    for (var edge : node.getInEdges()) uids.add(graph.getStreamNode(edge.getSourceId()).getTransformationUID());
    return uids;
  }

  private static String names(JobGraph job) {
    List<String> names = new ArrayList<>();
    for (JobVertex v : job.getVertices()) names.add(v.getName());
    return names.toString();
  }

  @Test
  void pinsTheCheckpointingALoopNeeds() throws Exception {
    Configuration conf = Runner.configuration(Plan.parse(PLAN), null);
    assertEquals("false", conf.toMap().get("execution.checkpointing.unaligned.enabled"));
    assertEquals("true", conf.toMap().get("execution.checkpointing.checkpoints-after-tasks-finish"));
    assertEquals("STREAMING", conf.toMap().get("execution.runtime-mode"));
    assertEquals("ROCKSDB", conf.toMap().get("state.backend.rocksdb.timer-service.factory"));
    String withoutLoop = PLAN.replace("\"feedback\":true", "\"feedback\":false")
        .replace("\"fromPort\":\"transfer\",\"to\":\"owners\"", "\"fromPort\":\"transfer\",\"to\":\"out\"");
    Configuration loopFree = Runner.configuration(Plan.parse(withoutLoop), null);
    assertNull(loopFree.toMap().get("state.backend.rocksdb.timer-service.factory"));
  }
}
