namespace Orseis.Execution;

/// <summary>One call's SQL, arguments and timeout, as given by the caller; nothing is bound yet.</summary>
internal readonly struct CommandRequest(string sql, object? args, TimeSpan? timeout)
{
    public string Sql { get; } = sql ?? throw new ArgumentNullException(nameof(sql));
    public object? Args { get; } = args;
    public TimeSpan? Timeout { get; } = timeout;
}
