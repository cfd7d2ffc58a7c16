using System.ComponentModel;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Mapping;

/// <summary>
/// The members and constructors Dapper uses and Orseis now uses too: setters of any visibility (a base class's private
/// one too), get-only auto-properties, readonly fields (in classes and structs), a non-public parameterless constructor,
/// and <see cref="ISupportInitialize"/> around the member writes.
/// </summary>
public sealed class DapperMemberRulesTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Database _db;

    public DapperMemberRulesTests() => _db = _file.Open();

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    public class ForOrms
    {
        private ForOrms() => Source = "private constructor";

        public ForOrms(long id, string name, long weight) => (Id, Name, Source) = (id, name, "public constructor");

        public long Id { get; private set; }

        public string Name { get; protected set; } = "";

        public string Source { get; }
    }

    [Fact]
    public void A_private_parameterless_constructor_is_used_when_no_public_constructor_has_its_columns()
    {
        ForOrms row = _db.QuerySingle<ForOrms>("select 7 as id, 'Ada' as name");
        Assert.Equal((7L, "Ada", "private constructor"), (row.Id, row.Name, row.Source));

        ForOrms full = _db.QuerySingle<ForOrms>("select 8 as id, 'Linus' as name, 3 as weight");
        Assert.Equal((8L, "Linus", "public constructor"), (full.Id, full.Name, full.Source));
    }

    public class Entity
    {
        public long Id { get; private set; }
    }

    public sealed class Customer : Entity
    {
        public string Name { get; private set; } = "";
    }

    [Fact]
    public void A_private_setter_declared_on_a_base_class_is_used()
    {
        Customer row = _db.QuerySingle<Customer>("select 3 as id, 'Grace' as name");
        Assert.Equal((3L, "Grace"), (row.Id, row.Name));
    }

    public readonly struct Point
    {
#pragma warning disable CA1051 // the readonly field is what is being mapped
        public readonly long X;
#pragma warning restore CA1051

        public long Y { get; }
    }

    public sealed record Reading(long Id)
    {
        public double Value { get; }
    }

    [Fact]
    public void Readonly_fields_and_get_only_properties_are_set_in_structs_and_after_a_constructor()
    {
        Point point = _db.QuerySingle<Point>("select 4 as x, 5 as y");
        Assert.Equal((4L, 5L), (point.X, point.Y));
        List<Point> points = _db.Query<Point>("select 1 as x, 2 as y union all select 3, 4");
        Assert.Equal([(1L, 2L), (3L, 4L)], points.Select(p => (p.X, p.Y)));

        Reading reading = _db.QuerySingle<Reading>("select 9 as id, 2.5 as value");
        Assert.Equal((9L, 2.5), (reading.Id, reading.Value));
    }

    [Fact]
    public async Task A_nullable_struct_row_is_the_struct_mapped_by_its_members()
    {
        Point? point = _db.QuerySingle<Point?>("select 4 as x, 5 as y");
        Assert.Equal((4L, 5L), (point!.Value.X, point.Value.Y));
        Assert.Equal([(1L, 2L), (3L, 4L)], _db.Query<Point?>("select 1 as x, 2 as y union all select 3, 4").Select(p => (p!.Value.X, p.Value.Y)));
        Assert.Null(_db.QueryFirstOrDefault<Point?>("select 1 as x, 2 as y where 0"));
        Assert.Equal(7L, (await _db.QueryFirstAsync<Point?>("select 7 as x, 8 as y"))!.Value.X);
        Assert.Equal(3L, _db.Stream<Point?>("select 3 as x, 4 as y").Single()!.Value.X);
        var error = Assert.Throws<MappingException>(() => _db.QuerySingle<Point?>("select 1 as x, 'text' as y"));
        Assert.Equal(("y", "Point.Y"), (error.Column, error.Member));
    }

    [Fact]
    public void A_get_only_property_keeps_its_mapping_errors()
    {
        var error = Assert.Throws<MappingException>(() => _db.QuerySingle<Point>("select 1 as x, 'text' as y"));
        Assert.Equal(("y", "Point.Y"), (error.Column, error.Member));
    }

    public sealed class Tracked : ISupportInitialize
    {
        private readonly List<string> _log = [];

        public long Id
        {
            get;
            set
            {
                field = value;
                _log.Add("Id");
            }
        }

        public string Name
        {
            get;
            set
            {
                field = value;
                _log.Add("Name");
            }
        } = "";

        public string Log => string.Join(" ", _log);

        public void BeginInit() => _log.Add("BeginInit");

        public void EndInit() => _log.Add("EndInit");
    }

    public sealed record TrackedRecord(long Id) : ISupportInitialize
    {
        public string Log { get; private set; } = "";

        public string Name { get; set; } = "";

        public void BeginInit() => Log += "BeginInit ";

        public void EndInit() => Log += $"EndInit({Name})";
    }

    [Fact]
    public void ISupportInitialize_brackets_the_member_writes()
    {
        Tracked row = _db.QuerySingle<Tracked>("select 1 as id, 'Ada' as name");
        Assert.Equal("BeginInit Id Name EndInit", row.Log);

        // Built by a constructor, the members after it are bracketed too (Dapper sets none after a constructor).
        TrackedRecord record = _db.QuerySingle<TrackedRecord>("select 2 as id, 'Linus' as name");
        Assert.Equal("BeginInit EndInit(Linus)", record.Log);
    }
}
