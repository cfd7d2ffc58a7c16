using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Parameters;

/// <summary>
/// A <see cref="DbStringValue"/> member that is null is a missing value, sent as NULL like a null string (Dapper throws a
/// NullReferenceException for it): decided and documented in docs/migration-from-dapper.md.
/// </summary>
public sealed class NullDbStringMemberTests
{
    public sealed class Filter
    {
        public DbStringValue? Code { get; init; }
    }

    [Fact]
    public void A_null_DbStringValue_member_is_sent_as_NULL()
    {
        using var seeded = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(1L, seeded.Runner.Scalar<long>("select @Code is null", new Filter { Code = null }));
        Assert.Equal(0L, seeded.Runner.Scalar<long>("select @Code is null", new Filter { Code = new DbStringValue("a", 4) }));
    }
}
