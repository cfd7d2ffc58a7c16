// Compiled into the integration tests and the benchmarks (linked, not copied): what Oracle's MySql.Data 8.0.16 needs
// to talk to MariaDB 10.6 and later. This project's package mirror serves no newer MySql.Data whole, and not
// MySqlConnector at all.
using MySql.Data.MySqlClient;

namespace Orseis.Testing;

/// <summary>
/// Makes a MySql.Data 8.0.16 connection string work against MariaDB 10.6+.
/// </summary>
/// <remarks>
/// MariaDB 10.6 renamed its 3-byte UTF-8 character set <c>utf8mb3</c>, a name MySql.Data 8.0.16 predates: every
/// result column it would receive in that character set (system variables, <c>version()</c>, <c>SHOW WARNINGS</c>,
/// which MySql.Data itself runs after any statement with a note) throws "Character set 'utf8mb3' is not supported"
/// and leaves the connection out of step with the server. The reason it receives them is that MySql.Data sends
/// <c>SET character_set_results=NULL</c> when it configures a connection, asking for every column in its own
/// character set. <see cref="Utf8Mb4ResultsInterceptor"/>, plugged in through MySql.Data's documented
/// <c>commandinterceptors</c> option, sends <c>SET character_set_results=utf8mb4</c> instead, so the server converts
/// every text column (and labels its metadata) to utf8mb4, which MySql.Data knows.
/// </remarks>
public static class MySqlDataOnMariaDb
{
    /// <summary>
    /// <paramref name="connectionString"/> plus the interceptor, <c>CharSet=utf8mb4</c> and no TLS (loopback only);
    /// <c>Connection Reset</c> as asked (MySql.Data's default is false, MySqlConnector's true).
    /// </summary>
    public static string ConnectionString(string connectionString, bool connectionReset) =>
        connectionString.TrimEnd(';') +
        $";CharSet=utf8mb4;SslMode=None;Connection Reset={(connectionReset ? "true" : "false")}" +
        $";commandinterceptors={typeof(Utf8Mb4ResultsInterceptor).FullName},{typeof(Utf8Mb4ResultsInterceptor).Assembly.GetName().Name}";
}

/// <summary>Replaces MySql.Data's <c>SET character_set_results=NULL</c> with <c>SET character_set_results=utf8mb4</c>.</summary>
public sealed class Utf8Mb4ResultsInterceptor : BaseCommandInterceptor
{
    /// <summary>The statement MySql.Data sends while it configures every new or reset connection.</summary>
    public const string RawResults = "SET character_set_results=NULL";

    /// <summary>What is sent instead.</summary>
    public const string Utf8Mb4Results = "SET character_set_results=utf8mb4";

    /// <inheritdoc/>
    public override bool ExecuteNonQuery(string sql, ref int returnValue)
    {
        if (!string.Equals(sql, RawResults, StringComparison.OrdinalIgnoreCase))
            return false;
        using var command = new MySqlCommand(Utf8Mb4Results, ActiveConnection);
        returnValue = command.ExecuteNonQuery();
        return true;
    }
}
