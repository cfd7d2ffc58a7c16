namespace Orseis.Analyzers.Tests;

/// <summary>
/// ORS0002: in a project published native or trimmed, a call whose row type, argument type, run-time Type or output member gets
/// no generated shape is a warning at the call, naming the type and why; types with shapes, and projects that are neither,
/// get none.
/// </summary>
public sealed class NoShapeTests
{
    private const string WithoutShapes =
        """
        Database db = null!;
        System.Type rowType = typeof(Plain);
        db.Query<Account>("select 1 as id");
        db.QueryFirst<Base>("select 1 as id");
        db.Query<Box<int>>("select 1 as value");
        db.Query<IRow>("select 1 as id");
        db.Query(rowType, "select 1 as id");
        new ParameterBag().Output(new Holder<int>(), h => h.Total);
        Outer.Run(db);

        public sealed class Plain { public long Id { get; set; } }
        public sealed class Account { public required long Id { get; set; } }
        public abstract class Base { public long Id { get; set; } }
        public sealed class Box<T> { public T Value { get; init; } = default!; }
        public interface IRow { long Id { get; } }
        public sealed class Holder<T> { public int Total { get; init; } }
        public static class Outer
        {
            private sealed class Secret { public long Id { get; set; } }
            public static void Run(Database db) => db.Execute("update t set id = @Id", new Secret());
            public static void Generic<T>(Database db) => db.Query<T>("select 1 as id");
            public static void Send<T>(Database db, T item) => db.Execute("update t set id = @Id", item);
        }
        """;

    private static readonly Dictionary<string, string> Aot = new() { ["EnableAotAnalyzer"] = "true", ["EnableTrimAnalyzer"] = "true" };

    [Fact]
    public async Task Each_kind_without_a_shape_is_a_warning_at_its_call_naming_the_type_and_why()
    {
        var diagnostics = await Compiler.AnalyzeAsync(WithoutShapes, new NoShapeAnalyzer(), Aot);

        Assert.All(diagnostics, d => Assert.Equal(("ORS0002", Microsoft.CodeAnalysis.DiagnosticSeverity.Warning), (d.Id, d.Severity)));
        string[] messages = [.. diagnostics.Select(d => d.GetMessage())];
        string[] expected =
        [
            "Row type Account gets no generated shape (it has required members",
            "Row type Base gets no generated shape (it is an abstract class",
            "Row type Box<int> gets no generated shape (it is generic and its property Value needs an accessor",
            "Row type IRow gets no generated shape (it is an interface",
            "The row type of this call gets no generated shape (it is a run-time Type",
            "Argument type T gets no generated shape (it is a type parameter",
            "The output member of Holder<int> gets no generated shape (its owner is generic and the setter of Total is init-only",
            "Argument type Outer.Secret gets no generated shape (generated code cannot name it",
            "Row type T gets no generated shape (it is a type parameter",
        ];
        foreach (string start in expected)
            Assert.Single(messages, m => m.StartsWith(start, StringComparison.Ordinal));
        Assert.Equal(expected.Length, messages.Length);
        Assert.All(messages, m => Assert.Contains("under Native AOT or trimming this call throws NotSupportedException", m,
            StringComparison.Ordinal));
        Assert.Contains(messages, m => m.Contains("or read the rows as DynamicRow", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Types_with_shapes_and_types_that_need_none_are_not_warned_about()
    {
        var diagnostics = await Compiler.AnalyzeAsync(
            """
            using System.Collections.Generic;
            Database db = null!;
            var account = new Account();
            db.Query<User>("select id, name from users where id > @min", new { min = 1L });
            db.Query<(long Id, string Name)>("select id, name from users");
            db.QueryFirstOrDefault<Point?>("select 1 as x, 2 as y");
            db.Query<Point, User, User>("select 1 as x, 1 as id, 'a' as name", (p, u) => u, splitOn: "id");
            db.Query<long?>("select 1");
            db.Query<byte[]>("select x'00'");
            db.Query<DynamicRow>("select 1");
            db.Query<dynamic>("select 1");
            db.Query(typeof(User), "select id, name from users");
            db.Execute("update t set id = @id", new Dictionary<string, object?> { ["id"] = 1 });
            db.Execute("update t set id = @id", new ParameterBag().Add("id", 1)
                .Output(account, a => a.Id).Output(account, a => a.Note).Output(account, a => a.Home!.City));
            db.Execute("insert into users (name) values (@Name)", new[] { new User(0, "a") });

            public sealed record User(long Id, string Name);
            public readonly struct Point { public long X { get; init; } public long Y { get; init; } }
            public sealed class Account { public int Id { get; set; } public string? Note { get; private set; } public Address? Home { get; set; } }
            public sealed class Address { public string? City { get; set; } }
            """,
            new NoShapeAnalyzer(), Aot);

        Assert.Empty(diagnostics);
    }

    [Fact]
    public async Task A_project_neither_published_native_nor_trimmed_is_not_warned()
    {
        Assert.Empty(await Compiler.AnalyzeAsync(WithoutShapes, new NoShapeAnalyzer(), new Dictionary<string, string>()));
        Assert.Empty(await Compiler.AnalyzeAsync(WithoutShapes, new NoShapeAnalyzer(),
            new Dictionary<string, string> { ["EnableAotAnalyzer"] = "false", ["EnableTrimAnalyzer"] = "false" }));

        // Trimmed without AOT: the members the compiled fallback reads may be gone, so the warning is given too.
        var trimmed = await Compiler.AnalyzeAsync(WithoutShapes, new NoShapeAnalyzer(),
            new Dictionary<string, string> { ["EnableTrimAnalyzer"] = "true" });
        Assert.Equal(9, trimmed.Length);
    }
}
