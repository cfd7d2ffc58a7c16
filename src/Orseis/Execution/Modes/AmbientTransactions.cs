using System.Data.Common;
using System.Runtime.CompilerServices;
using System.Transactions;

namespace Orseis.Execution.Modes;

/// <summary>
/// What Orseis does under an ambient <see cref="TransactionScope"/>. A provider joins the scope only with a connection
/// it opens inside it (auto-enlistment): OpenPerCall's connections do, on providers that enlist; a connection opened
/// before the scope (ReuseConnection's shared one, a session's) does not. A call whose connection is not in the scope
/// would run outside it, its changes kept even when the scope is not completed, so it throws instead, naming the mode and
/// what to do. With no ambient transaction this costs one read of <see cref="Transaction.Current"/> per call.
/// </summary>
internal static class AmbientTransactions
{
    /// <summary>
    /// Null when connections of the provider join an ambient transaction as they open: those with
    /// <see cref="ProviderTraits.EnlistKeys"/> (Npgsql and SqlClient <c>Enlist</c>, MySqlConnector and MySql.Data
    /// <c>AutoEnlist</c>), each on unless the connection string turns it off. Otherwise why not, for the message:
    /// <see cref="ProviderTraits.NeverEnlistsBecause"/> (Microsoft.Data.Sqlite never enlists), and no other provider is assumed to.
    /// </summary>
    public static string? WhyNoEnlistment(ProviderTraits traits, Type providerType, string? connectionString)
    {
        if (traits.EnlistKeys is not { } keys)
        {
            return traits.NeverEnlistsBecause
                ?? $"Orseis does not know whether {providerType.Namespace} connections join a TransactionScope";
        }

        return WhyEnlistmentOff(keys, connectionString);
    }

    // Apart from the check above: a provider that never enlists (SQLite) does not have the JIT compile the connection
    // string's reading at its first database (issue 44).
    private static string? WhyEnlistmentOff(IReadOnlyList<string> keys, string? connectionString)
    {
        var builder = new DbConnectionStringBuilder();
        try
        {
            builder.ConnectionString = connectionString ?? "";
        }
        catch (ArgumentException)
        {
            return null;
        }

        foreach (string key in keys)
        {
            if (builder.TryGetValue(key, out object? value) && value?.ToString() is { } text &&
                (text.Equals("false", StringComparison.OrdinalIgnoreCase) || text.Equals("no", StringComparison.OrdinalIgnoreCase)))
            {
                return $"the connection string turns enlistment off ({key}={text})";
            }
        }

        return null;
    }

    // Keyed by the scope's transaction object (what Transaction.Current returns inside it), and kept while the scope
    // holds it: a doomed transaction completes at once, but its scope goes on answering calls until it is disposed.
    private static readonly ConditionalWeakTable<Transaction, ScopeState> States = new();
    private static volatile bool _anyState;

    /// <summary>
    /// Whether any scope's call ever failed in this process: until then the release of every open-per-call connection skips
    /// reading <see cref="Transaction.Current"/> for a pending rollback.
    /// </summary>
    public static bool AnyState => _anyState;

    /// <summary>What Orseis learnt about a scope's transaction from its failed calls; null while none failed.</summary>
    public static ScopeState? StateOf(Transaction ambient) =>
        _anyState && States.TryGetValue(ambient, out ScopeState? state) ? state : null;

    /// <summary>The state of <paramref name="ambient"/>, created at its first failed call.</summary>
    public static ScopeState Track(Transaction ambient)
    {
        _anyState = true;
        return States.GetValue(ambient, static _ => new ScopeState());
    }

    /// <summary>
    /// Makes the scope's transaction roll back whatever the caller does next: a scope disposed after <c>Complete</c> then
    /// throws <see cref="TransactionAbortedException"/> instead of reporting a commit of work the server threw away.
    /// </summary>
    public static void Doom(Transaction ambient, Exception why)
    {
        try
        {
            ambient.Rollback(why);
        }
// The provider's rollback of a broken connection throws what it likes; the transaction is aborted all the same.
#pragma warning disable CA1031
        catch (Exception)
#pragma warning restore CA1031
        {
            // Already ending, or the provider could not send its rollback: nothing of it commits either way.
        }
    }

    /// <summary>Whether <paramref name="transaction"/> is still running (neither committed nor rolled back).</summary>
    public static bool IsActive(Transaction transaction)
    {
        try
        {
            return transaction.TransactionInformation.Status == TransactionStatus.Active;
        }
        catch (ObjectDisposedException)
        {
            return false;
        }
    }

    /// <summary>A call under a scope its connection did not join.</summary>
    public static InvalidOperationException NotJoined(string owner, string why, string whatToDo) =>
        new($"A TransactionScope is active, but {why}, so this call on {owner} would run outside the scope " +
            "and its changes would stay even if the scope is not completed. Orseis refuses the call instead. " +
            $"{whatToDo} To run the call outside the scope on purpose, " +
            "wrap it in a TransactionScope with TransactionScopeOption.Suppress.");

    /// <summary>
    /// A call on a session whose connection joined a scope that is still active, made outside that scope: it would
    /// run inside the scope's transaction all the same.
    /// </summary>
    public static InvalidOperationException StillJoined(string owner) =>
        new($"The connection of {owner} joined the TransactionScope the session was opened in, and that transaction is still active, " +
            "but this call is made outside it (under TransactionScopeOption.Suppress, or from another flow): it would run inside the " +
            "scope's transaction all the same, and be rolled back with it. " +
            "Use the database, or another session, for work outside the scope.");

    /// <summary>A scope's transaction as Orseis learnt it from failed calls (<see cref="Track"/>).</summary>
    internal sealed class ScopeState
    {
        /// <summary>A failed call's error the server has not been asked about yet.</summary>
        public Exception? Unsettled { get; set; }

        /// <summary>The server ended the scope's transaction.</summary>
        public TransactionLoss? Loss { get; set; }

        /// <summary>The scope's enlisted connection broke, which ended its transaction.</summary>
        public bool Broken { get; set; }

        /// <summary>
        /// Why the scope's transaction must be rolled back, once the call that found out has given its connection back: a
        /// provider rolls back through the enlisted connection, and MySql.Data, asked to while a call still held it, put
        /// the same connection in its pool twice (two sessions then shared one socket: "Out of sync with server").
        /// </summary>
        public Exception? DoomWith { get; set; }
    }
}
