using MySqlConnector;
using Orseis;
using Orseis.Diagnostics;

/// <summary>
/// The probe's second workload, <c>Orseis.EventsProbe --parked-scopes CONNECTION-STRING</c> (a MariaDB or MySQL): pool
/// <see cref="Pool"/>, Max Pool Size 3, taken whole by a session holding one connection and two connection scopes that each
/// parked one and went quiet; a fourth caller waits for the pool (Connect Timeout 3 s: a first connect on a machine at load
/// 30-40 took more than 1 s) and gets a
/// <see cref="PoolExhaustedException"/>. It prints what the caller was told (<c>exhausted held=1 parked=2 connecting=0
/// waiting=1: MESSAGE</c>), ends the scopes and the session, prints <c>done</c> and exits 0 (3 or 4, saying why, if the pool
/// did not end up so). Detectors PoolTimeout and ServerUnavailable: the first must explain the timeout, the second must not
/// blame the server. Run under <c>orseis-trace collect</c>, it is a trace of a pool exhausted by parked scopes.
/// </summary>
internal static class ParkedScopes
{
    public const string Pool = "probe-parked";

    public static async Task<int> RunAsync(string connectionString)
    {
        var options = new OrseisOptions
        {
            PoolName = Pool,
            // The longest allowed: no sweep gives a parked connection back in the second the fourth caller waits.
            ScopeIdleWindow = TimeSpan.FromSeconds(10),
            Diagnostics = { Detectors = FindingKind.PoolTimeout | FindingKind.ServerUnavailable },
        };
        var quiet = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var parked = new CountdownEvent(2);
        await using var db = new Database(MySqlConnectorFactory.Instance, connectionString.TrimEnd(';') + ";Maximum Pool Size=3;Connect Timeout=3",
            options);
        using (Session held = db.OpenSession())
        {
            held.Scalar<int>("select 1");
            Task[] scopes = [.. Enumerable.Range(1, 2).Select(n => Task.Run(async () =>
            {
                await using ConnectionScope scope = db.BeginScope();
                await db.ScalarAsync<int>("select @n", new { n });
                parked.Signal(); // the call ended: its connection is parked in the scope
                await quiet.Task;
            }))];
            try
            {
                if (!parked.Wait(TimeSpan.FromSeconds(20)))
                {
                    Console.Error.WriteLine("the two scopes did not park a connection each within 20 s");
                    return 3;
                }

                try
                {
                    db.Scalar<int>("select 4");
                    Console.Error.WriteLine("the fourth caller got a connection: the pool was not taken whole");
                    return 4;
                }
                catch (PoolExhaustedException e)
                {
                    Console.WriteLine($"exhausted held={e.InUse} parked={e.Parked} connecting={e.Connecting} waiting={e.Waiting}: " +
                                      e.Message.ReplaceLineEndings(" "));
                }
            }
            finally
            {
                quiet.TrySetResult();
                await Task.WhenAll(scopes).WaitAsync(TimeSpan.FromSeconds(30));
            }
        }

        Console.WriteLine("done");
        return 0;
    }
}
