using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;

namespace Orseis.Tests.Api;

/// <summary>
/// The whole message of every setting <c>new Database</c> refuses, word for word: the checks read the options' fields and
/// build their messages out of line (so the JIT compiles less at a process's first database, issue 44), and a user still
/// reads the same sentence, the setting's name and the value given.
/// </summary>
public sealed class OptionsMessageTests
{
    public static TheoryData<string, Action<OrseisOptions>, string> Refused => new()
    {
        { "Mode", o => o.Mode = (ExecutionMode)42, "OrseisOptions.Mode has the undefined value 42; use OpenPerCall or ReuseConnection." },
        { "CommandTimeout", o => o.CommandTimeout = TimeSpan.FromSeconds(-5), "OrseisOptions.CommandTimeout must be zero or positive (or Timeout.InfiniteTimeSpan), not -00:00:05." },
        { "ReuseWaitTimeout", o => o.ReuseWaitTimeout = TimeSpan.Zero, "OrseisOptions.ReuseWaitTimeout must be positive (or Timeout.InfiniteTimeSpan), not 00:00:00." },
        { "ScopeIdleWindow", o => o.ScopeIdleWindow = TimeSpan.FromSeconds(11), "OrseisOptions.ScopeIdleWindow must be more than zero and at most 10 s, not 00:00:11; for a connection held longer, use a Session." },
        { "PoolName", o => o.PoolName = "", "OrseisOptions.PoolName must not be empty; leave it null for the default name." },
        { "Detectors", o => o.Diagnostics.Detectors = (FindingKind)((int)FindingKind.All + 1), $"DiagnosticsOptions.Detectors has undefined flags ({(int)FindingKind.All + 1}); combine FindingKind values." },
        { "ChurnThreshold", o => o.Diagnostics.ChurnThreshold = 1, "DiagnosticsOptions.ChurnThreshold must be at least 2, not 1." },
        { "ChurnGap", o => o.Diagnostics.ChurnGap = TimeSpan.Zero, "DiagnosticsOptions.ChurnGap must be positive, not 00:00:00." },
        { "RepeatedStatementThreshold", o => o.Diagnostics.RepeatedStatementThreshold = 0, "DiagnosticsOptions.RepeatedStatementThreshold must be at least 2, not 0." },
        { "RepeatedStatementGap", o => o.Diagnostics.RepeatedStatementGap = TimeSpan.FromSeconds(-1), "DiagnosticsOptions.RepeatedStatementGap must be positive, not -00:00:01." },
        { "SlowOpenFactor", o => o.Diagnostics.SlowOpenFactor = 1, "DiagnosticsOptions.SlowOpenFactor must be a finite number above 1, not 1." },
        { "SlowOpenFloor", o => o.Diagnostics.SlowOpenFloor = TimeSpan.FromSeconds(-2), "DiagnosticsOptions.SlowOpenFloor must be zero or positive, not -00:00:02." },
        { "QueueWaitFloor", o => o.Diagnostics.QueueWaitFloor = TimeSpan.FromSeconds(-3), "DiagnosticsOptions.QueueWaitFloor must be zero or positive, not -00:00:03." },
        { "HeldTooLongThreshold", o => o.Diagnostics.HeldTooLongThreshold = TimeSpan.Zero, "DiagnosticsOptions.HeldTooLongThreshold must be positive, not 00:00:00." },
        { "ThreadPoolDelayThreshold", o => o.Diagnostics.ThreadPoolDelayThreshold = TimeSpan.FromSeconds(-4), "DiagnosticsOptions.ThreadPoolDelayThreshold must be positive, not -00:00:04." },
        { "FindingInterval", o => o.Diagnostics.FindingInterval = TimeSpan.FromSeconds(-5), "DiagnosticsOptions.FindingInterval must be zero or positive, not -00:00:05." },
        { "FindingsKept", o => o.Diagnostics.FindingsKept = -1, "DiagnosticsOptions.FindingsKept must be zero or positive, not -1." },
    };

    [Theory]
    [MemberData(nameof(Refused))]
    public void A_refused_setting_gives_its_whole_message_and_name(string setting, Action<OrseisOptions> set, string message)
    {
        var options = new OrseisOptions();
        set(options);

        var error = Assert.Throws<ArgumentException>(() => new Database(SqliteFactory.Instance, "Data Source=:memory:", options));

        Assert.Equal(message + $" (Parameter '{setting}')", error.Message);
        Assert.Equal(setting, error.ParamName);
    }

    [Fact]
    public void The_settings_read_back_what_was_set_and_valid_ones_pass()
    {
        var options = new OrseisOptions
        {
            Mode = ExecutionMode.ReuseConnection,
            CommandTimeout = TimeSpan.FromSeconds(7),
            ReuseWaitTimeout = Timeout.InfiniteTimeSpan,
            ScopeIdleWindow = TimeSpan.FromSeconds(10),
            PoolName = "p",
        };
        options.Diagnostics.ChurnThreshold = 2;
        options.Diagnostics.SlowOpenFactor = 1.5;
        options.Diagnostics.FindingsKept = 0;

        using var db = new Database(SqliteFactory.Instance, "Data Source=:memory:", options);

        Assert.Equal(ExecutionMode.ReuseConnection, db.Mode);
        Assert.Equal("p", db.PoolName);
        Assert.Equal((TimeSpan?)TimeSpan.FromSeconds(7), options.CommandTimeout);
        Assert.Equal(Timeout.InfiniteTimeSpan, options.ReuseWaitTimeout);
        Assert.Equal(TimeSpan.FromSeconds(10), options.ScopeIdleWindow);
        Assert.Equal(2, options.Diagnostics.ChurnThreshold);
        Assert.Equal(1.5, options.Diagnostics.SlowOpenFactor);
        Assert.Equal(0, options.Diagnostics.FindingsKept);
    }
}
