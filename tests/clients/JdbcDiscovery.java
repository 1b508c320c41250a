/*
 * JdbcDiscovery.java -- pgjdbc as an anonymized role (tests/clients/run).
 *
 * What a BI tool that speaks JDBC does in its first minute, against the
 * fixture of setup.sql (private table visits, public table browsers,
 * unlabelled table staff_notes):
 *
 *   - DatabaseMetaData.getTables / getColumns / getIndexInfo list the tables;
 *   - Metabase's table sync: for each table, the privilege probe
 *     SELECT TRUE FROM "schema"."table" WHERE 1 <> 1 LIMIT 0 (a table whose
 *     probe fails is hidden), then its fields, then a sample of rows (which
 *     the sync tolerates to fail: refused for private tables);
 *   - information_schema and the statistics views a database browser shows;
 *   - an anonymization query over the private table, with its values read as
 *     plain numbers (the _CI and _WITH_BOUNDS forms expanded), through a
 *     prepared statement executed often enough for pgjdbc to switch to
 *     server-side statements and binary transfer.
 *
 * Usage: java -cp <postgresql.jar>:<dir> JdbcDiscovery SOCKET_DIR PORT DATABASE ROLE
 * Prints one "PASS jdbc: <check>" or "FAIL jdbc: <check>: <why>" line per
 * check; exit status 1 when a check failed.
 *
 * The connection goes over the cluster's Unix socket (the throwaway clusters
 * of tools/test listen on no TCP port): UnixSocketFactory hands pgjdbc a
 * java.net.Socket over a Java 16+ Unix domain SocketChannel.  BI tools
 * connect over TCP; nothing else differs.
 */

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

public class JdbcDiscovery {

	/* ---- a Unix domain socket for pgjdbc (socketFactory, socketFactoryArg) ---- */

	public static class UnixSocketFactory extends javax.net.SocketFactory {
		private final String path;

		public UnixSocketFactory(String path) {
			this.path = path;
		}

		@Override
		public Socket createSocket() {
			return new UnixSocket(path);
		}

		@Override
		public Socket createSocket(String host, int port) throws IOException {
			Socket s = createSocket();
			s.connect(null);
			return s;
		}

		@Override
		public Socket createSocket(String host, int port, InetAddress local, int localPort) throws IOException {
			return createSocket(host, port);
		}

		@Override
		public Socket createSocket(InetAddress host, int port) throws IOException {
			return createSocket((String) null, port);
		}

		@Override
		public Socket createSocket(InetAddress host, int port, InetAddress local, int localPort) throws IOException {
			return createSocket((String) null, port);
		}
	}

	static class UnixSocket extends Socket {
		private final String path;
		private SocketChannel channel;
		private InputStream in;
		private OutputStream out;

		UnixSocket(String path) {
			this.path = path;
		}

		@Override
		public void connect(SocketAddress endpoint, int timeout) throws IOException {
			channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
			in = Channels.newInputStream(channel);
			out = Channels.newOutputStream(channel);
		}

		@Override
		public void connect(SocketAddress endpoint) throws IOException {
			connect(endpoint, 0);
		}

		@Override
		public InputStream getInputStream() {
			return in;
		}

		@Override
		public OutputStream getOutputStream() {
			return out;
		}

		@Override
		public boolean isConnected() {
			return channel != null && channel.isConnected();
		}

		@Override
		public boolean isClosed() {
			return channel != null && !channel.isOpen();
		}

		@Override
		public synchronized void close() throws IOException {
			if (channel != null)
				channel.close();
		}

		/* TCP options: nothing to set on a Unix socket */
		@Override
		public void setTcpNoDelay(boolean on) {
		}

		@Override
		public void setKeepAlive(boolean on) {
		}

		@Override
		public void setSoTimeout(int timeout) {
		}

		@Override
		public int getSoTimeout() {
			return 0;
		}

		@Override
		public void setReceiveBufferSize(int size) {
		}

		@Override
		public void setSendBufferSize(int size) {
		}
	}

	/* ---- checks ---- */

	private static int failed = 0;

	interface Check {
		String run(Connection c) throws Exception;	/* null: passed, else why not */
	}

	private static void check(Connection c, String name, Check check) {
		String why;

		try {
			why = check.run(c);
		} catch (Exception e) {
			why = "unexpected exception: " + e;
		}
		if (why == null)
			System.out.println("PASS jdbc: " + name);
		else {
			System.out.println("FAIL jdbc: " + name + ": " + why);
			failed++;
		}
		try {
			if (!c.getAutoCommit())
				c.rollback();
		} catch (SQLException e) {
			/* the next check says so */
		}
	}

	private static List<String> tables(Connection c) throws SQLException {
		List<String> names = new ArrayList<>();
		DatabaseMetaData md = c.getMetaData();

		try (ResultSet rs = md.getTables(null, "public", "%",
				new String[] {"TABLE", "PARTITIONED TABLE", "VIEW", "FOREIGN TABLE", "MATERIALIZED VIEW"})) {
			while (rs.next())
				names.add(rs.getString("TABLE_NAME"));
		}
		return names;
	}

	/* Metabase's privilege probe: the table is offered when it succeeds */
	private static boolean probeSucceeds(Connection c, String table) throws SQLException {
		try (Statement s = c.createStatement();
			 ResultSet rs = s.executeQuery("SELECT TRUE FROM \"public\".\"" + table + "\" WHERE 1 <> 1 LIMIT 0")) {
			return !rs.next();
		} catch (SQLException e) {
			if (!"42501".equals(e.getSQLState()))
				throw e;
			return false;
		}
	}

	/* a statement that must fail with SQLSTATE 42501; null when it did */
	private static String refused(Connection c, String sql) throws SQLException {
		try (Statement s = c.createStatement()) {
			s.executeQuery(sql).close();
			return "not refused: " + sql;
		} catch (SQLException e) {
			return "42501".equals(e.getSQLState()) ? null : "refused with " + e.getSQLState() + ": " + e.getMessage();
		}
	}

	private static String checkLevel(Connection c) throws SQLException {
		try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT anon_dp_access_level()")) {
			rs.next();
			return "anonymized".equals(rs.getString(1)) ? null : "level " + rs.getString(1);
		}
	}

	private static String checkGetTables(Connection c) throws SQLException {
		List<String> names = tables(c);

		/* getTables reads pg_class: every table, the unlabelled one too */
		if (!names.contains("visits") || !names.contains("browsers"))
			return "getTables lists " + names;
		return null;
	}

	private static String checkGetColumns(Connection c) throws SQLException {
		List<String> columns = new ArrayList<>();

		try (ResultSet rs = c.getMetaData().getColumns(null, "public", "visits", "%")) {
			while (rs.next())
				columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE"));
		}
		String want = "[uid:" + Types.INTEGER + ", browser:" + Types.VARCHAR + ", duration:" + Types.DOUBLE + "]";
		return columns.toString().equals(want) ? null : "getColumns(visits) " + columns + ", expected " + want;
	}

	private static String checkIndexInfo(Connection c) throws SQLException {
		try (ResultSet rs = c.getMetaData().getIndexInfo(null, "public", "visits", false, true)) {
			while (rs.next())
				;
		}
		return null;
	}

	/* the sync of a BI tool: tables by privilege probe, then fields, then a sample */
	private static String checkMetabaseSync(Connection c) throws SQLException {
		TreeSet<String> offered = new TreeSet<>();

		for (String table : tables(c))
			if (probeSucceeds(c, table))
				offered.add(table);
		/* the budget view of the extension is the analyst's too */
		if (!offered.toString().equals("[anon_dp_budget, browsers, visits]"))
			return "the probe offers " + offered + ", expected [anon_dp_budget, browsers, visits]";
		for (String table : offered)
			try (ResultSet rs = c.getMetaData().getColumns(null, "public", table, "%")) {
				if (!rs.next())
					return "no fields of " + table;
			}
		/* fingerprinting samples rows: the public table's, not the private one's */
		try (Statement s = c.createStatement();
			 ResultSet rs = s.executeQuery("SELECT \"public\".\"browsers\".\"name\" AS \"name\" FROM \"public\".\"browsers\" LIMIT 10000")) {
			if (!rs.next())
				return "no sample of browsers";
		}
		return refused(c, "SELECT \"public\".\"visits\".\"uid\" AS \"uid\" FROM \"public\".\"visits\" LIMIT 10000");
	}

	private static String checkProbeShape(Connection c) throws SQLException {
		try (Statement s = c.createStatement();
			 ResultSet rs = s.executeQuery("SELECT * FROM visits WHERE 1 = 0")) {
			ResultSetMetaData md = rs.getMetaData();
			String shape = md.getColumnCount() + ":" + md.getColumnName(1) + "," + md.getColumnName(3)
				+ ":" + md.getColumnTypeName(3);

			if (rs.next())
				return "a row";
			return shape.equals("3:uid,duration:float8") ? null : "result shape " + shape;
		}
	}

	private static String checkInformationSchema(Connection c) throws SQLException {
		TreeSet<String> names = new TreeSet<>();

		try (Statement s = c.createStatement();
			 ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")) {
			while (rs.next())
				names.add(rs.getString(1));
		}
		if (!names.contains("visits") || !names.contains("browsers") || names.contains("staff_notes"))
			return "information_schema.tables lists " + names;
		try (Statement s = c.createStatement();
			 ResultSet rs = s.executeQuery("SELECT has_table_privilege('visits', 'SELECT'), "
										   + "has_table_privilege('visits', 'INSERT'), has_table_privilege('staff_notes', 'SELECT')")) {
			rs.next();
			if (!rs.getBoolean(1) || rs.getBoolean(2) || rs.getBoolean(3))
				return "has_table_privilege " + rs.getBoolean(1) + " " + rs.getBoolean(2) + " " + rs.getBoolean(3);
		}
		return null;
	}

	private static String checkStatistics(Connection c) throws SQLException {
		String seen = "";

		try (Statement s = c.createStatement();
			 ResultSet rs = s.executeQuery("SELECT relname, n_live_tup FROM pg_stat_user_tables "
										   + "WHERE relname IN ('visits', 'browsers') ORDER BY relname")) {
			while (rs.next()) {
				String name = rs.getString(1);

				rs.getLong(2);
				seen += name + (rs.wasNull() ? ":masked " : ":shown ");
			}
		}
		return seen.equals("browsers:shown visits:masked ") ? null : "pg_stat_user_tables: " + seen;
	}

	private static String checkRawRefused(Connection c) throws SQLException {
		String why = refused(c, "SELECT * FROM visits");

		return why != null ? why : refused(c, "SELECT count(*) FROM visits WHERE uid = 42");
	}

	/* an anonymization query, its values read as numbers, prepared and run repeatedly */
	private static String checkAnonymizationQuery(Connection c) throws SQLException {
		String sql = "SELECT browser, ANON_COUNT(*) AS users, ANON_AVG(duration, 0, 120) AS avg_duration "
			+ "FROM visits GROUP BY browser ORDER BY browser";

		try (PreparedStatement p = c.prepareStatement(sql)) {
			for (int run = 0; run < 6; run++)
				try (ResultSet rs = p.executeQuery()) {
					int rows = 0;

					while (rs.next()) {
						long users = rs.getLong("users");
						double avg = rs.getDouble("avg_duration");

						rows++;
						if (Math.abs(users - 100) > 40 || avg < 0 || avg > 120)
							return "run " + run + ": " + rs.getString(1) + " users " + users + " avg " + avg;
					}
					if (rows != 3)
						return "run " + run + ": " + rows + " browsers";
				}
		}
		return null;
	}

	/* the _CI and _WITH_BOUNDS forms as plain numbers */
	private static String checkResultShapes(Connection c) throws SQLException {
		String sql = "SELECT (ANON_COUNT_CI(*)).*, (ANON_AVG_WITH_BOUNDS(duration))[1] AS avg_value, "
			+ "(ANON_AVG_WITH_BOUNDS(duration))[2] AS avg_lower, ANON_SUM_WITH_BOUNDS(duration) AS sum_bounds, "
			+ "ANON_AVG_CI(duration, 0, 120)::float8[] AS avg_interval FROM visits";

		try (PreparedStatement p = c.prepareStatement(sql)) {
			for (int run = 0; run < 6; run++)
				try (ResultSet rs = p.executeQuery()) {
					rs.next();
					double value = rs.getDouble("value");
					double lower = rs.getDouble("lower");
					double upper = rs.getDouble("upper");
					double avg = rs.getDouble("avg_value");
					Array bounds = rs.getArray("sum_bounds");
					Double[] sum = (Double[]) bounds.getArray();

					if (!(lower <= value && value <= upper) || Math.abs(value - 300) > 40)
						return "run " + run + ": count interval " + lower + " " + value + " " + upper;
					if (avg < 0 || avg > 128 || rs.getDouble("avg_lower") < 0)
						return "run " + run + ": average " + avg;
					if (sum.length != 3 || sum[1] != 0.0 || sum[2] < 120)
						return "run " + run + ": sum with bounds " + java.util.Arrays.toString(sum);
					Double[] interval = (Double[]) rs.getArray("avg_interval").getArray();
					if (interval.length != 3 || !(interval[1] <= interval[0] && interval[0] <= interval[2]))
						return "run " + run + ": interval as an array " + java.util.Arrays.toString(interval);
				}
		}
		return null;
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 4) {
			System.err.println("usage: JdbcDiscovery SOCKET_DIR PORT DATABASE ROLE");
			System.exit(2);
		}
		Properties props = new Properties();
		props.setProperty("user", args[3]);
		props.setProperty("sslmode", "disable");
		props.setProperty("socketFactory", UnixSocketFactory.class.getName());
		props.setProperty("socketFactoryArg", args[0] + "/.s.PGSQL." + args[1]);
		props.setProperty("prepareThreshold", "3");
		props.setProperty("ApplicationName", "anon_dp JdbcDiscovery");
		String url = "jdbc:postgresql://localhost:" + args[1] + "/" + args[2];

		try (Connection c = DriverManager.getConnection(url, props)) {
			check(c, "connected as an anonymized role", JdbcDiscovery::checkLevel);
			check(c, "DatabaseMetaData.getTables lists the private and the public table", JdbcDiscovery::checkGetTables);
			check(c, "DatabaseMetaData.getColumns of the private table", JdbcDiscovery::checkGetColumns);
			check(c, "DatabaseMetaData.getIndexInfo of the private table", JdbcDiscovery::checkIndexInfo);
			check(c, "Metabase table sync: the probe offers the private and the public table, not the unlabelled one; samples of the private table refused",
				  JdbcDiscovery::checkMetabaseSync);
			check(c, "an empty probe returns the table's columns and no row", JdbcDiscovery::checkProbeShape);
			check(c, "information_schema.tables and has_table_privilege", JdbcDiscovery::checkInformationSchema);
			check(c, "pg_stat_user_tables: the public table's counters, the private one's masked", JdbcDiscovery::checkStatistics);
			check(c, "raw reads of the private table refused (42501)", JdbcDiscovery::checkRawRefused);
			check(c, "anonymization query through a prepared statement, read as numbers", JdbcDiscovery::checkAnonymizationQuery);
			check(c, "_CI expanded, _CI cast to float8[], _WITH_BOUNDS elements read as doubles, arrays as Double[]", JdbcDiscovery::checkResultShapes);
		}
		System.exit(failed > 0 ? 1 : 0);
	}
}
