using System.Collections;
using System.Reflection;
using Microsoft.Data.Sqlite;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Costs;

/// <summary>
/// <c>probe-sqlite</c>: shows whether closing a pooled <see cref="SqliteConnection"/> throws away the prepared
/// statements of a command that stays alive, by reading the command's private <c>_preparedStatements</c> list
/// (an implementation detail, read only to explain the PrepareCost numbers; prints "unknown" if it is renamed).
/// </summary>
public static class SqliteStatementProbe
{
    /// <summary>Runs the probe and prints one line per step; returns the exit code.</summary>
    public static int Run()
    {
        using BenchDatabase database = BenchDatabase.Create(BenchProvider.Sqlite);
        using var connection = new SqliteConnection(database.ConnectionString);
        using SqliteCommand command = connection.CreateCommand();
        command.CommandText = "select 1";
        FieldInfo? field = typeof(SqliteCommand).GetField("_preparedStatements", BindingFlags.NonPublic | BindingFlags.Instance);
        string Count() => field?.GetValue(command) is ICollection list ? list.Count.ToString(System.Globalization.CultureInfo.InvariantCulture) : "unknown";

        Console.WriteLine($"Microsoft.Data.Sqlite {typeof(SqliteConnection).Assembly.GetName().Version}, connection string: {database.ConnectionString}");
        connection.Open();
        command.ExecuteScalar();
        Console.WriteLine($"executed on an open connection: prepared statements held by the command = {Count()}");
        connection.Close();
        Console.WriteLine($"after Close() (connection back to the pool): {Count()}");
        connection.Open();
        Console.WriteLine($"after Open() from the pool: {Count()}");
        command.ExecuteScalar();
        Console.WriteLine($"after executing again (re-prepared): {Count()}");
        return 0;
    }
}
