using Microsoft.Extensions.Logging;
using Orseis.Diagnostics;
using Orseis.Tests.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics;

/// <summary>Each finding's <see cref="PoolFinding.HelpLink"/>: its kind's section of docs/findings.md, and the end of its log line.</summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class FindingLinkTests : DiagTest
{
    public static TheoryData<FindingKind, string> Anchors => new()
    {
        { FindingKind.Churn, "#churn" },
        { FindingKind.SlowOpen, "#slowopen" },
        { FindingKind.Saturation, "#saturation" },
        { FindingKind.PoolTimeout, "#pooltimeout" },
        { FindingKind.HeldTooLong, "#heldtoolong" },
        { FindingKind.ThreadPoolStarvation, "#threadpoolstarvation" },
        { FindingKind.PoolSize, "#poolsize" },
        { FindingKind.LockConflicts, "#lockconflicts" },
        { FindingKind.ServerUnavailable, "#serverunavailable" },
        { FindingKind.RepeatedStatement, "#repeatedstatement" },
        { FindingKind.FrequentRetries, "#frequentretries" },
    };

    [Theory]
    [MemberData(nameof(Anchors))]
    public void Every_kind_links_to_its_heading_of_the_findings_page(FindingKind kind, string anchor)
    {
        var fake = new Fake();
        Assert.True(fake.Log.Report(kind, "found", [], null, rateLimited: false));
        PoolFinding finding = Assert.Single(fake.Log.Kept);
        Assert.Equal("https://github.com/orseis/orseis/blob/main/docs/findings.md" + anchor, finding.HelpLink.AbsoluteUri);
        Assert.Equal(finding.HelpLink, FindingLinks.For(kind.ToString())); // what the trace tool prints for the event's kind
    }

    [Fact]
    public void Every_kind_is_in_the_table_above()
    {
        FindingKind[] kinds = [.. Enum.GetValues<FindingKind>().Where(k => k is not FindingKind.None and not FindingKind.All)];
        Assert.Equal(kinds.Order(), Anchors.Select(row => (FindingKind)row[0]).Order());
    }

    [Theory]
    [InlineData(FindingKind.None)]
    [InlineData(FindingKind.All)]
    [InlineData(FindingKind.Churn | FindingKind.PoolSize)]
    public void Only_one_kind_has_a_link(FindingKind kinds)
    {
        ArgumentOutOfRangeException error = Assert.Throws<ArgumentOutOfRangeException>(() => FindingLinks.For(kinds));
        Assert.Contains($"not '{kinds}'", error.Message, StringComparison.Ordinal);
        Assert.Null(FindingLinks.For(kinds.ToString()));
    }

    [Theory]
    [InlineData("")]
    [InlineData("pooltimeout")] // the EventSource names kinds as the enum does
    [InlineData("NextVersionsKind")]
    [InlineData("8")]
    public void A_kind_name_this_version_does_not_know_has_no_link(string kind) => Assert.Null(FindingLinks.For(kind));

    [Fact]
    public void The_logged_warning_ends_with_the_link()
    {
        var logger = new LinesLogger();
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 2;
            d.ChurnGap = TimeSpan.FromMinutes(5);
            d.Logger = logger;
        });
        db.Execute("select 1");
        db.Execute("select 1");

        PoolFinding finding = Assert.Single(db.GetPoolReport().Findings);
        string line = Assert.Single(logger.Lines);
        Assert.Equal($"Orseis Churn: {finding.Message} See https://github.com/orseis/orseis/blob/main/docs/findings.md#churn", line);
        Assert.Equal(finding.HelpLink, Assert.Single(logger.HelpLinks)); // a structured logger gets it as its own property
    }

    private sealed class LinesLogger : ILogger
    {
        public List<string> Lines { get; } = [];

        public List<object?> HelpLinks { get; } = [];

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            Lines.Add(formatter(state, exception));
            if (state is IEnumerable<KeyValuePair<string, object?>> properties)
                HelpLinks.AddRange(properties.Where(p => p.Key == "HelpLink").Select(p => p.Value));
        }
    }
}
