namespace Orseis.Execution.Calls;

/// <summary>One call's SQL, arguments and timeout, as given by the caller; nothing is bound yet.</summary>
/// <remarks>
/// Fields, not properties: the call's steps read them on every call, and a field is read in place where a property
/// getter may be a call the JIT does not inline.
/// </remarks>
internal readonly struct CommandRequest(string sql, object? args, TimeSpan? timeout)
{
    /// <summary>The SQL as the caller wrote it.</summary>
    public readonly string Sql = sql ?? throw new ArgumentNullException(nameof(sql));

    /// <summary>The caller's arguments.</summary>
    public readonly object? Args = args;

    /// <summary>The call's own timeout; null for the database's.</summary>
    public readonly TimeSpan? Timeout = timeout;
}
