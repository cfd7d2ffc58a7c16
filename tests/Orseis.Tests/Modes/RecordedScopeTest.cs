using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// What the scope count and race tests share: a SQLite file made with the derived class's set-up statements, a
/// <see cref="RecordingDataSource"/> over it (open connections, commands created and disposed, executions) and a fake clock,
/// so the idle sweep runs only when a test advances it; databases over the source with every detector (timed) or none.
/// </summary>
public abstract class RecordedScopeTest : IDisposable
{
    private readonly SqliteFile _file = new();

    protected RecordedScopeTest(params string[] setup)
    {
        using (Database db = _file.Open())
        {
            foreach (string sql in setup)
                db.Execute(sql);
        }

        Source = new RecordingDataSource(_file.ConnectionString);
    }

    /// <summary>The pools' clock: it stands still unless a test advances it.</summary>
    protected FakeTimeProvider Time { get; } = new();

    protected RecordingDataSource Source { get; }

    protected Database Open(bool timed)
    {
        var options = new OrseisOptions { Diagnostics = { Detectors = timed ? FindingKind.All : FindingKind.None } };
        options.Diagnostics.TimeProvider = Time;
        return new Database(Source, options);
    }

    public virtual void Dispose()
    {
        Source.Dispose();
        _file.Dispose();
        GC.SuppressFinalize(this);
    }
}
