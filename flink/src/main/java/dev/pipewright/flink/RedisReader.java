package dev.pipewright.flink;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import redis.clients.jedis.params.XReadParams;

/**
 * One subtask of source.redis, the local engine's RedisStreamReader: it opens its split (checks
 * the ids and the key, resolves "$" and "last"), then reads the stream after the split's lastId,
 * XREAD by XREAD, collecting each entry's record and moving lastId past it, so a checkpoint (taken
 * between two polls) keeps the last entry emitted. A bounded read ends once it has emitted the
 * stop id or there is nothing after lastId; an unbounded one waits on the server up to BLOCK_MS a
 * read, which bounds how late a barrier is taken, as locally. A subtask without the split ends.
 */
final class RedisReader implements SourceReader<String, RedisSplit> {
  /** Entries one read asks for. */
  private static final int BATCH = 1_000;
  /** How long a read of an unbounded stream waits on the server for new entries. */
  private static final int BLOCK_MS = 100;

  private final RedisSource source;
  private final RedisConnection connection;
  private RedisSplit split;
  private boolean noMoreSplits;
  private CompletableFuture<Void> available = new CompletableFuture<>();

  RedisReader(RedisSource source) {
    this.source = source;
    this.connection = new RedisConnection(source.operatorId, source.url, source.retryTimeoutMs);
  }

  @Override
  public void start() {}

  @Override
  public void addSplits(List<RedisSplit> splits) {
    RedisSplit added = splits.get(0);
    try {
      open(added);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while opening stream \"" + added.stream + "\"", e);
    }
    split = added;
    available.complete(null);
  }

  private void open(RedisSplit s) throws InterruptedException {
    String op = source.operatorId;
    for (String id : new String[] {s.lastId, s.stopId}) {
      if (id != null && !id.equals("$") && !id.equals("last") && !StreamIds.isStreamId(id)) {
        throw UserError.fail("operator \"" + op + "\": startId \"" + id
            + "\" is not a stream entry id (\"0\", \"$\", or \"<ms>-<seq>\" such as \"1700000000000-0\")");
      }
    }
    String lastGenerated = connection.run("opening stream \"" + s.stream + "\"", client -> {
      String type = client.type(s.stream);
      if (type.equals("none")) {
        if (s.mayBeMissing) return "0-0";
        throw UserError.fail("operator \"" + op + "\": stream \"" + s.stream + "\" does not exist at " + connection.server);
      }
      if (!type.equals("stream")) {
        throw UserError.fail("operator \"" + op + "\": key \"" + s.stream + "\" at " + connection.server + " holds a "
            + type + ", not a stream");
      }
      return client.xinfoStream(s.stream).getLastGeneratedId().toString();
    });
    if ("$".equals(s.lastId)) s.lastId = lastGenerated;
    if ("last".equals(s.stopId)) s.stopId = lastGenerated;
  }

  @Override
  public InputStatus pollNext(ReaderOutput<String> output) throws Exception {
    if (split == null) {
      if (noMoreSplits) return InputStatus.END_OF_INPUT;
      available = new CompletableFuture<>();
      return InputStatus.NOTHING_AVAILABLE;
    }
    RedisSplit s = split;
    boolean bounded = s.stopId != null;
    if (bounded && StreamIds.compare(s.lastId, s.stopId) >= 0) return finished();
    // A bounded read knows there is more up to stopId: it asks without waiting.
    XReadParams params = bounded ? XReadParams.xReadParams().count(BATCH)
        : XReadParams.xReadParams().count(BATCH).block(BLOCK_MS);
    byte[] key = s.stream.getBytes(StandardCharsets.UTF_8);
    byte[] after = s.lastId.getBytes(StandardCharsets.UTF_8);
    List<Object> reply = connection.run("reading stream \"" + s.stream + "\"",
        client -> client.xread(params, new AbstractMap.SimpleImmutableEntry<>(key, after)));
    List<Object> entries = entriesOf(reply);
    int kept = 0;
    for (Object e : entries) {
      List<?> entry = (List<?>) e;
      String id = utf8(entry.get(0));
      if (bounded && StreamIds.compare(id, s.stopId) > 0) break;
      kept++;
      s.lastId = id;
      JsObjects.Builder fields = new JsObjects.Builder();
      List<?> pairs = entry.get(1) instanceof List<?> list ? list : List.of();
      for (int i = 0; i + 1 < pairs.size(); i += 2) fields.put(utf8(pairs.get(i)), utf8(pairs.get(i + 1)));
      String text;
      try {
        text = RedisRecordText.text(fields);
      } catch (RedisRecordText.BadJson bad) {
        if (source.skipBad) continue;
        throw UserError.fail("operator \"" + source.operatorId + "\": stream \"" + s.stream + "\" entry " + id
            + ": its \"json\" field is not valid JSON (" + bad.getMessage() + ")");
      }
      output.collect(text);
    }
    // Nothing after lastId (entries up to stopId were deleted), or past the end: done.
    if (bounded && (entries.isEmpty() || kept < entries.size())) return finished();
    return InputStatus.MORE_AVAILABLE;
  }

  /** The split is read to its end: nothing of it goes into checkpoints any more. */
  private InputStatus finished() {
    split = null;
    if (noMoreSplits) return InputStatus.END_OF_INPUT;
    available = new CompletableFuture<>();
    return InputStatus.NOTHING_AVAILABLE;
  }

  /** XREAD's reply (RESP2: [[stream, [[id, [field, value, …]], …]]], or null) as its entries. */
  private static List<Object> entriesOf(List<Object> reply) {
    List<Object> entries = new ArrayList<>();
    if (reply == null) return entries;
    for (Object stream : reply) {
      List<?> pair = (List<?>) stream;
      for (Object entry : (List<?>) pair.get(1)) entries.add(entry);
    }
    return entries;
  }

  /** Bytes as Node's Buffer.toString reads them: a bad sequence is U+FFFD. */
  private static String utf8(Object bytes) {
    return bytes == null ? "" : new String((byte[]) bytes, StandardCharsets.UTF_8);
  }

  @Override
  public List<RedisSplit> snapshotState(long checkpointId) {
    return split == null ? List.of() : List.of(split.copy());
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() {
    connection.close();
  }
}
