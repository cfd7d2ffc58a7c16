using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Interop;

/// <summary><see cref="Database.RowParser{T}"/> on a reader the caller runs: the same mapping, handlers and errors as Orseis' own calls.</summary>
public sealed class RowParserTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Database _db;

    public RowParserTests()
    {
        _db = _file.Open(configure: o => o.AddTypeHandler(new CodeHandler()));
        _db.Execute("create table shapes (id integer primary key, kind text not null, side real, radius real, code text)");
        _db.Execute("insert into shapes values (1, 'square', 2, null, 'sq'), (2, 'circle', null, 1.5, 'ci'), (3, 'square', 3, null, 'sq')");
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    public sealed record Code(string Value);

    public sealed record Square(long Id, double Side, Code Code);

    public sealed record Circle(long Id, double Radius);

    private sealed class CodeHandler : TypeHandler<Code>
    {
        public override Code Parse(object value) => new(((string)value).ToUpperInvariant());

        public override void SetValue(System.Data.Common.DbParameter parameter, Code value) => parameter.Value = value.Value;
    }

    [Fact]
    public void Rows_of_several_types_in_one_result_are_mapped_by_a_discriminator()
    {
        using var connection = new SqliteConnection(_file.ConnectionString);
        connection.Open();
        using SqliteCommand command = connection.CreateCommand();
        command.CommandText = "select id, kind, side, radius, code from shapes order by id";
        using SqliteDataReader reader = command.ExecuteReader();
        var shapes = new List<object>();
        Func<System.Data.Common.DbDataReader, Square>? square = null;
        Func<System.Data.Common.DbDataReader, Circle>? circle = null;
        while (reader.Read())
        {
            if (reader.GetString(1) == "square")
                shapes.Add((square ??= _db.RowParser<Square>(reader))(reader));
            else
                shapes.Add((circle ??= _db.RowParser<Circle>(reader))(reader));
        }

        Assert.Equal([new Square(1, 2, new Code("SQ")), new Circle(2, 1.5), new Square(3, 3, new Code("SQ"))], shapes);
    }

    [Fact]
    public void A_column_that_does_not_fit_is_named()
    {
        using var connection = new SqliteConnection(_file.ConnectionString);
        connection.Open();
        using SqliteCommand command = connection.CreateCommand();
        command.CommandText = "select id, radius as side, code from shapes where id = 1";
        using SqliteDataReader reader = command.ExecuteReader();
        Assert.True(reader.Read());
        var error = Assert.Throws<MappingException>(() => _db.RowParser<Square>(reader)(reader));
        Assert.Equal("side", error.Column);
        Assert.Throws<ArgumentNullException>(() => _db.RowParser<Square>(null!));
    }
}
