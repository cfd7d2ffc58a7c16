using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Mapping;

/// <summary>A result that repeats a column name fills the member from the first such column (Dapper: the last).</summary>
public sealed class RepeatedColumnTests : IDisposable
{
    private readonly SeededDatabase _db = new(RunnerKind.Session);

    public void Dispose() => _db.Dispose();

    public sealed class Person
    {
        public long Id { get; set; }
        public string? Name { get; set; }
    }

    public sealed record PersonRecord(long Id, string Name);

    [Fact]
    public void The_first_of_two_columns_with_a_members_name_fills_it()
    {
        Person row = _db.Runner.QuerySingle<Person>("select 1 as id, 'first' as name, 2 as id, 'second' as name");
        Assert.Equal(1, row.Id);
        Assert.Equal("first", row.Name);
    }

    [Fact]
    public void The_first_of_two_columns_with_a_parameters_name_fills_it()
    {
        PersonRecord row = _db.Runner.QuerySingle<PersonRecord>("select 1 as id, 'first' as name, 2 as id, 'second' as name");
        Assert.Equal(new PersonRecord(1, "first"), row);
    }
}
