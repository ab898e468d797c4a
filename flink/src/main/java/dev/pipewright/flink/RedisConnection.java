package dev.pipewright.flink;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * One Redis operator's connection (a reader, a writer's check, a committer), as the local engine's
 * (engine/operators/redis/redisConnection.ts and connectors/serverRetry.ts): a Jedis client made
 * on first use and again after the server went away, every call retried with backoff while the
 * server is away, and once it has not answered for the operator's `retryTimeoutMs` the job fails
 * without restarts (the waiting is done) with the local line, `operator "ID": Redis at H:P did not
 * answer for 60 s while reading stream "S" (retryTimeoutMs 60000): CAUSE`. A reply that waiting
 * cannot mend (WRONGTYPE, NOAUTH) fails at once: `operator "ID": Redis at H:P refused ACTION: CAUSE`.
 * Not thread-safe: each user holds its own.
 */
final class RedisConnection implements AutoCloseable {
  /** The local engine's default retryTimeoutMs (engine/graph/kinds/connectorParams.ts). */
  static final long DEFAULT_RETRY_TIMEOUT_MS = 60_000;

  private static final int CONNECT_TIMEOUT_MS = 5_000;
  /** Above a blocking read's wait (RedisReader), so that a read that waits is not a timeout. */
  private static final int SOCKET_TIMEOUT_MS = 10_000;
  private static final long FIRST_BACKOFF_MS = 100;
  private static final long MAX_BACKOFF_MS = 5_000;
  /** Replies a server gives while it cannot serve yet (loading its data, a failover). */
  private static final Pattern TRANSIENT_REPLIES = Pattern.compile("^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN)\\b");

  final String operatorId;
  /** "Redis at host:port", never a password the URL may carry. */
  final String server;
  private final String url;
  private final long retryTimeoutMs;
  private Jedis client;

  /** What a call does with a connected client. */
  interface Call<T> {
    T run(Jedis client);
  }

  RedisConnection(String operatorId, String url, long retryTimeoutMs) {
    this.operatorId = operatorId;
    this.url = url;
    this.retryTimeoutMs = retryTimeoutMs;
    this.server = describe(url);
  }

  /**
   * `call` with a connected client, retried while the server is away; `action` says what it does,
   * for the messages. A UserError (a check of the call's own) passes as it is.
   */
  <T> T run(String action, Call<T> call) throws InterruptedException {
    long started = System.currentTimeMillis();
    long backoff = FIRST_BACKOFF_MS;
    for (;;) {
      try {
        return call.run(connected());
      } catch (RuntimeException e) {
        if (!isTransient(e)) {
          if (e instanceof JedisDataException || e instanceof IllegalArgumentException) {
            throw UserError.fail("operator \"" + operatorId + "\": " + server + " refused " + action + ": " + cause(e));
          }
          throw e;
        }
        // The client met the server going away: the next attempt makes a new one.
        release();
        long waited = System.currentTimeMillis() - started;
        if (waited >= retryTimeoutMs) {
          throw UserError.fail("operator \"" + operatorId + "\": " + server + " did not answer for " + seconds(waited)
              + " while " + action + " (retryTimeoutMs " + retryTimeoutMs + "): " + cause(e));
        }
        Thread.sleep(Math.min(backoff, retryTimeoutMs - waited));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  private Jedis connected() {
    if (client != null && client.isConnected() && !client.isBroken()) return client;
    release();
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("the url is not a Redis URL (" + e.getReason() + ")");
    }
    if (!JedisURIHelper.isValid(uri)) throw new IllegalArgumentException("the url is not a Redis URL");
    DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        .protocol(RedisProtocol.RESP2)
        .connectionTimeoutMillis(CONNECT_TIMEOUT_MS)
        .socketTimeoutMillis(SOCKET_TIMEOUT_MS)
        .ssl("rediss".equals(uri.getScheme()))
        .clientName("pipewright-" + operatorId.replaceAll("[^A-Za-z0-9_.-]", "_"));
    String user = JedisURIHelper.getUser(uri);
    String password = JedisURIHelper.getPassword(uri);
    if (user != null && !user.isEmpty()) config.user(user);
    if (password != null) config.password(password);
    if (JedisURIHelper.hasDbIndex(uri)) config.database(JedisURIHelper.getDBIndex(uri));
    HostAndPort at = JedisURIHelper.getHostAndPort(uri);
    Jedis made = new Jedis(at, config.build());
    try {
      made.connect();
    } catch (RuntimeException e) {
      made.close();
      throw e;
    }
    client = made;
    return made;
  }

  /** Lets the connection go until the next call (a committer between two commits). */
  void release() {
    Jedis c = client;
    client = null;
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // A broken connection's close: nothing is left to release.
      }
    }
  }

  @Override
  public void close() {
    release();
  }

  /** The server being away or not ready: worth waiting out. A reply such as WRONGTYPE is not. */
  static boolean isTransient(Throwable e) {
    if (e instanceof JedisConnectionException) return true;
    return e instanceof JedisDataException && e.getMessage() != null
        && TRANSIENT_REPLIES.matcher(e.getMessage()).find();
  }

  /** An error's message, first line only, with its cause's when it does not say it (describeCause). */
  static String cause(Throwable e) {
    String text = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    String first = text.split("\n", 2)[0].trim();
    Throwable inner = e.getCause();
    if (inner == null || inner.getMessage() == null) return first;
    String innerFirst = inner.getMessage().split("\n", 2)[0];
    return first.contains(inner.getMessage()) ? first : first + " (" + innerFirst + ")";
  }

  /** As the local engine writes a wait: "250 ms", "1.5 s", "60 s". */
  static String seconds(long ms) {
    if (ms < 1000) return ms + " ms";
    long tenths = Math.round(ms / 100.0);
    return (tenths % 10 == 0 ? Long.toString(tenths / 10) : (tenths / 10) + "." + (tenths % 10)) + " s";
  }

  private static final Pattern HOST =
      Pattern.compile("^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\\[[0-9A-Fa-f:.]+\\])$");
  private static final Pattern PORT = Pattern.compile("^[0-9]{1,5}$");

  /**
   * "Redis at host:port" as the local engine names a server (engine/graph/serverAddress.ts): only
   * what reads as a host and a port, from after the URL's last "@" to its path; "Redis" when
   * nothing does.
   */
  static String describe(String url) {
    String rest = url.trim().replaceFirst("^[A-Za-z][A-Za-z0-9+.-]*://", "");
    int at = rest.lastIndexOf('@');
    String authority = (at == -1 ? rest : rest.substring(at + 1)).split("[/?#]", 2)[0];
    if (authority.isBlank()) return "Redis";
    StringBuilder servers = new StringBuilder();
    for (String part : authority.split(",", -1)) {
      java.util.regex.Matcher m = Pattern.compile("^(\\[[^\\]]*\\]|[^:]*)(?::(.*))?$").matcher(part.trim());
      if (!m.matches() || !HOST.matcher(m.group(1)).matches()) return "Redis";
      String port = m.group(2);
      if (port != null && !PORT.matcher(port).matches()) return "Redis";
      if (servers.length() > 0) servers.append(',');
      servers.append(m.group(1)).append(':').append(port == null ? "6379" : port);
    }
    return "Redis at " + servers;
  }
}
