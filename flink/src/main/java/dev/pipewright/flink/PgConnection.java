package dev.pipewright.flink;

import java.io.Serializable;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sink.postgres `connection` (the local engine's node-postgres URL,
 * `postgres://user:password@host:port/db?sslmode=require`) as the PostgreSQL JDBC driver takes it:
 * `jdbc:postgresql://host:port/db` with the user, the password (percent-decoded, as node-postgres
 * decodes them) and the query's settings as properties, so that no password is part of a URL the
 * driver may log. Also the server in words, as the local messages name it (pgErrors.ts
 * postgresServer): "PostgreSQL at host:port/db", never its user or password.
 */
final class PgConnection implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Pattern URL = Pattern.compile("^postgres(?:ql)?://([^/?#]*)(?:/([^?#]*))?(?:\\?([^#]*))?(?:#.*)?$",
      Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private static final Pattern HOST_PORT = Pattern.compile("^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.-]*)(?::([0-9]{1,5}))?$");
  private static final Pattern PLAIN_DATABASE = Pattern.compile("^[A-Za-z0-9_.$-]+$");
  /** node-postgres's query names that pgjdbc spells otherwise. */
  private static final Map<String, String> JDBC_NAMES = Map.of(
      "application_name", "ApplicationName",
      "connect_timeout", "connectTimeout");

  final String jdbcUrl;
  final String server;
  private final Map<String, String> properties;

  private PgConnection(String jdbcUrl, String server, Map<String, String> properties) {
    this.jdbcUrl = jdbcUrl;
    this.server = server;
    this.properties = properties;
  }

  /** The connection of operator `operatorId`; a UserError's line when it is no postgres:// URL. */
  static PgConnection parse(String connection, String operatorId) {
    Matcher m = URL.matcher(connection.trim());
    if (!m.matches()) {
      throw new UserError("operator \"" + operatorId
          + "\": params.connection is not a postgres:// URL (postgres://user:password@host:port/db), the only form the Flink runner reads");
    }
    String authority = m.group(1);
    String database = m.group(2) == null ? "" : decode(m.group(2));
    Map<String, String> props = new LinkedHashMap<>();
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      int colon = userInfo.indexOf(':');
      props.put("user", decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      if (colon >= 0) props.put("password", decode(userInfo.substring(colon + 1)));
    }
    Matcher hp = HOST_PORT.matcher(authority.substring(at + 1));
    if (!hp.matches()) {
      throw new UserError("operator \"" + operatorId + "\": params.connection names no host the Flink runner can read ("
          + "one host and port: postgres://user:password@host:port/db)");
    }
    String host = hp.group(1).isEmpty() ? "localhost" : hp.group(1);
    String port = hp.group(2) == null ? "5432" : hp.group(2);
    if (m.group(3) != null) {
      for (String pair : m.group(3).split("&")) {
        if (pair.isEmpty()) continue;
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq));
        String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
        props.put(JDBC_NAMES.getOrDefault(name, name), value);
      }
    }
    String shownDatabase = PLAIN_DATABASE.matcher(database).matches() ? "/" + database : "";
    String jdbc = "jdbc:postgresql://" + host + ":" + port + "/" + encodeForJdbc(database);
    return new PgConnection(jdbc, "PostgreSQL at " + host + ":" + port + shownDatabase, props);
  }

  /** A new connection, named for its operator in pg_stat_activity as the local sink's are. */
  Connection open(String operatorId) throws SQLException {
    return open(operatorId, Map.of());
  }

  /** A new connection with driver properties of its own (source.postgres's replication connections). */
  Connection open(String operatorId, Map<String, String> extra) throws SQLException {
    Properties props = new Properties();
    props.putAll(properties);
    props.putAll(extra);
    props.putIfAbsent("ApplicationName", truncate("pipewright " + operatorId, 63));
    props.putIfAbsent("connectTimeout", "10");
    // The driver itself, not DriverManager: DriverManager keeps the drivers of every job's class
    // loader registered (a TaskManager runs many jobs), and looks them up by the caller's.
    Connection connection = new org.postgresql.Driver().connect(jdbcUrl, props);
    if (connection == null) throw new SQLException("the PostgreSQL driver does not take " + jdbcUrl);
    return connection;
  }

  private static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max);
  }

  private static String decode(String s) {
    // URLDecoder reads "+" as a space, which a URL's path and user part do not.
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** The database name as pgjdbc's URL parser wants it: percent-encoded where it must be. */
  private static String encodeForJdbc(String database) {
    StringBuilder out = new StringBuilder();
    for (byte b : database.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      boolean plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
          || c == '.' || c == '$';
      if (plain) out.append((char) c);
      else out.append('%').append(String.format("%02X", c));
    }
    return out.toString();
  }
}
