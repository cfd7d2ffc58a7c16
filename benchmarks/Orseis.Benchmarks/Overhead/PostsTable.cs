using System.Data.Common;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Overhead;

/// <summary>Creates and fills the <c>Posts</c> table the ORM overhead benchmark reads.</summary>
public static class PostsTable
{
    /// <summary>The select every contender runs, with <c>@Id</c> as its only parameter.</summary>
    public const string SelectById =
        "select Id, Title, Body, CreatedAt, UpdatedAt, Score, Views, IsPublished, AuthorId, Rating from Posts where Id = @Id";

    /// <summary>(Re)creates the table with <paramref name="rows"/> rows, ids 1..rows, in one transaction.</summary>
    public static void CreateAndSeed(BenchDatabase database, int rows)
    {
        using DbConnection connection = database.Factory.CreateConnection()!;
        connection.ConnectionString = database.ConnectionString;
        connection.Open();
        Run(connection, null, "drop table if exists Posts");
        Run(connection, null, CreateSql(database.Provider));

        using DbTransaction transaction = connection.BeginTransaction();
        using DbCommand insert = connection.CreateCommand();
        insert.Transaction = transaction;
        insert.CommandText = "insert into Posts (Id, Title, Body, CreatedAt, UpdatedAt, Score, Views, IsPublished, AuthorId, Rating) " +
            "values (@Id, @Title, @Body, @CreatedAt, @UpdatedAt, @Score, @Views, @IsPublished, @AuthorId, @Rating)";
        var start = new DateTime(2014, 11, 10, 8, 0, 0, DateTimeKind.Unspecified);
        for (int id = 1; id <= rows; id++)
        {
            insert.Parameters.Clear();
            Add(insert, "@Id", (long)id);
            Add(insert, "@Title", $"Post number {id}");
            Add(insert, "@Body", string.Concat(Enumerable.Repeat($"Body of post {id}. ", 10)));
            Add(insert, "@CreatedAt", start.AddMinutes(id));
            Add(insert, "@UpdatedAt", id % 2 == 0 ? start.AddMinutes(id + 60) : DBNull.Value);
            Add(insert, "@Score", id / 7.0);
            Add(insert, "@Views", id * 3);
            Add(insert, "@IsPublished", id % 4 != 0);
            Add(insert, "@AuthorId", id % 3 == 0 ? DBNull.Value : (long)(id % 50));
            Add(insert, "@Rating", id % 5 == 0 ? DBNull.Value : (decimal)(id % 500) / 100m);
            insert.ExecuteNonQuery();
        }

        transaction.Commit();
    }

    private static string CreateSql(BenchProvider provider)
    {
        (string text, string time, string boolean) = provider switch
        {
            BenchProvider.SqlServer => ("nvarchar(max)", "datetime2", "bit"),
            BenchProvider.MySql or BenchProvider.MySqlData => ("text", "datetime(6)", "boolean"),
            _ => ("text", "timestamp", "boolean"),
        };
        return $"create table Posts (Id bigint primary key, Title varchar(200) not null, Body {text} not null, " +
            $"CreatedAt {time} not null, UpdatedAt {time} null, Score double precision not null, Views int not null, " +
            $"IsPublished {boolean} not null, AuthorId bigint null, Rating numeric(5,2) null)";
    }

    private static void Add(DbCommand command, string name, object value)
    {
        DbParameter parameter = command.CreateParameter();
        parameter.ParameterName = name;
        parameter.Value = value;
        command.Parameters.Add(parameter);
    }

    private static void Run(DbConnection connection, DbTransaction? transaction, string sql)
    {
        using DbCommand command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }
}
