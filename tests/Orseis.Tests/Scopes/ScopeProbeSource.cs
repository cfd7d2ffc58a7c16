using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Scopes;

/// <summary>
/// A data source over a SQLite file whose connections answer two SQL functions: <c>conn_id()</c>, a number of the connection
/// object the call ran on (a new one for every open, the same one for every call a scope's parked connection served), and
/// <c>gate()</c>, which blocks the statement until the test lets it go (<see cref="HoldNextCall"/>). It counts the connections
/// open now, in the provider's sense.
/// </summary>
public sealed class ScopeProbeSource(string connectionString) : DbDataSource
{
    private long _made;
    private int _open;
    private Gate? _gate;

    public override string ConnectionString => connectionString;

    /// <summary>How many connections are open now (opened and not yet closed).</summary>
    public int OpenConnections => Volatile.Read(ref _open);

    /// <summary>
    /// Makes the next statement that calls <c>gate()</c> block until the returned gate is released; the gate tells when the
    /// statement reached it.
    /// </summary>
    public Gate HoldNextCall()
    {
        var gate = new Gate();
        Volatile.Write(ref _gate, gate);
        return gate;
    }

    protected override DbConnection CreateDbConnection() => new ProbeConnection(this, connectionString, Interlocked.Increment(ref _made));

    /// <summary>A statement held in <c>gate()</c>: <see cref="Reached"/> once it is there, going on once released.</summary>
    public sealed class Gate
    {
        private readonly TaskCompletionSource _reached = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _release = new(TaskCreationOptions.RunContinuationsAsynchronously);

        /// <summary>Waits (at most 10 s) until a statement reached the gate; false when none did.</summary>
        public bool Reached() => _reached.Task.Wait(TimeSpan.FromSeconds(10));

        public void Release() => _release.TrySetResult();

        internal void Pass()
        {
            _reached.TrySetResult();
            if (!_release.Task.Wait(TimeSpan.FromSeconds(30)))
                throw new TimeoutException("the test never released the gate");
        }
    }

    private sealed class ProbeConnection : SqliteConnection
    {
        public ProbeConnection(ScopeProbeSource source, string connectionString, long id)
            : base(connectionString)
        {
            // Registered before the open: Microsoft.Data.Sqlite creates them on the handle at every open.
            CreateFunction("conn_id", () => id);
            CreateFunction("gate", () =>
            {
                Interlocked.Exchange(ref source._gate, null)?.Pass();
                return 0L;
            });
            StateChange += (_, change) =>
            {
                if (change.CurrentState == ConnectionState.Open && change.OriginalState != ConnectionState.Open)
                    Interlocked.Increment(ref source._open);
                else if (change.OriginalState == ConnectionState.Open && change.CurrentState != ConnectionState.Open)
                    Interlocked.Decrement(ref source._open);
            };
        }
    }
}
