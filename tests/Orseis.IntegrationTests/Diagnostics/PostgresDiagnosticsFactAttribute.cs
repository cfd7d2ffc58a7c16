namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>
/// A test that needs the PostgreSQL server named by <c>ORSEIS_POSTGRES</c> (scripts/test.sh starts a private one and
/// sets it). Without it the test is skipped, saying why, except on CI (<c>CI=true</c>), where it runs and fails.
/// </summary>
public sealed class PostgresDiagnosticsFactAttribute : FactAttribute
{
    public const string Variable = "ORSEIS_POSTGRES";

    public PostgresDiagnosticsFactAttribute()
    {
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable(Variable)) && Environment.GetEnvironmentVariable("CI") != "true")
            Skip = $"{Variable} is not set: run scripts/test.sh (it starts a private PostgreSQL) or set {Variable} to an Npgsql connection string.";
    }

    public static string ConnectionString =>
        Environment.GetEnvironmentVariable(Variable) is { Length: > 0 } cs
            ? cs
            : throw new InvalidOperationException($"{Variable} is not set, and CI=true requires the PostgreSQL tests to run: start a server with scripts/pg-start.sh.");
}
