package dev.pipewright.flink;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * source.postgres on Flink, on the local engine's contract (engine/operators/postgres/source/):
 * a table's rows as of the replication slot's start, then the slot's changes of the table, in
 * commit order, as {op, before, after} records (PgSourceReader). One split that subtask 0 reads
 * (SubtaskZeroEnumerator), the log position in checkpoints (PgSourceSplit), the slot told a position
 * once the checkpoint holding it is complete. Unbounded, as locally, but with stopAt "current"
 * (PgSourceReader). Flink CDC does not fit Flink 2.3 (docs/flink.md),
 * so this reads pgoutput itself with the PostgreSQL JDBC driver's replication API (PgOutput).
 * The slot and publication names come in the plan: the CLI fills in the local defaults
 * (postgresSource.ts defaultName), which need the job's folder.
 */
public final class PgSource implements Source<String, PgSourceSplit, List<PgSourceSplit>> {
  private static final long serialVersionUID = 1L;

  final String operatorId;
  final PgConnection connection;
  final String table;
  final boolean snapshot;
  final String slot;
  final String publication;
  /** stopAt "current": a bounded read, up to the end of the log when the job first opens. */
  final boolean stopAtCurrent;

  PgSource(Plan.Operator op) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    this.operatorId = op.id;
    this.connection = PgConnection.parse(params.path("connection").asText(), op.id);
    this.table = params.path("table").asText();
    this.snapshot = params.path("snapshot").asBoolean(true);
    this.slot = params.path("slot").asText(null);
    this.publication = params.path("publication").asText(null);
    this.stopAtCurrent = "current".equals(params.path("stopAt").asText(null));
    if (slot == null || publication == null) {
      throw new IllegalArgumentException("operator \"" + op.id + "\": the plan names no slot or publication (the CLI fills them in)");
    }
  }

  @Override
  public Boundedness getBoundedness() {
    return stopAtCurrent ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<String, PgSourceSplit> createReader(SourceReaderContext context) {
    return new PgSourceReader(this);
  }

  @Override
  public SplitEnumerator<PgSourceSplit, List<PgSourceSplit>> createEnumerator(
      SplitEnumeratorContext<PgSourceSplit> context) {
    return new SubtaskZeroEnumerator<>(context, List.of(new PgSourceSplit(slot, publication)), PgSourceSplit::copy);
  }

  @Override
  public SplitEnumerator<PgSourceSplit, List<PgSourceSplit>> restoreEnumerator(
      SplitEnumeratorContext<PgSourceSplit> context, List<PgSourceSplit> pending) {
    return new SubtaskZeroEnumerator<>(context, pending, PgSourceSplit::copy);
  }

  @Override
  public SimpleVersionedSerializer<PgSourceSplit> getSplitSerializer() {
    return new PgSourceSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<List<PgSourceSplit>> getEnumeratorCheckpointSerializer() {
    return new PgSourceSplit.ListSerializer();
  }
}
