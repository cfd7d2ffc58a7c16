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

    /// <summary>Row types read through type handlers: none gets a shape, each is read from one column by its handler.</summary>
    internal const string Handled =
        """
        using System.Data.Common;
        Database db = null!;
        var options = new OrseisOptions()
            .AddTypeHandler(new MoneyHandler())
            .AddTypeHandler(new JsonHandler<Settings>())
            .AddTypeHandler(new PointHandler());
        Helpers.Register(options, new JsonHandler<Unhandled>());
        db.Query<Money>("select amount from orders");
        db.QueryFirst<Settings>("select settings from users");
        db.QueryFirstOrDefault<Point?>("select spot from places");
        db.Query<User, Money, User>("select id, amount from orders", (u, m) => u, splitOn: "amount");
        db.Query(typeof(Settings), "select settings from users");
        db.Query<Unhandled>("select 1 as id");

        public sealed record User(long Id);
        public abstract class Money { public decimal Amount { get; protected set; } }
        public sealed class Euros : Money { public Euros(decimal amount) => Amount = amount; }
        public sealed class Settings { public required string Theme { get; init; } }
        public struct Point { public required int X; public required int Y; }
        public sealed class Unhandled { public required long Id { get; init; } }
        public sealed class MoneyHandler : TypeHandler<Money>
        {
            public override Money Parse(object value) => new Euros((decimal)value);
            public override void SetValue(DbParameter parameter, Money value) => parameter.Value = value.Amount;
        }
        public sealed class JsonHandler<T> : TypeHandler<T>
        {
            public override T Parse(object value) => System.Text.Json.JsonSerializer.Deserialize<T>((string)value)!;
            public override void SetValue(DbParameter parameter, T value) => parameter.Value = System.Text.Json.JsonSerializer.Serialize(value);
        }
        public sealed class PointHandler : TypeHandler<Point>
        {
            public override Point Parse(object value) => new() { X = (int)(long)value, Y = 0 };
            public override void SetValue(DbParameter parameter, Point value) => parameter.Value = value.X;
        }
        public static class Helpers
        {
            // Through a type parameter: the compilation does not see which type is handled.
            public static void Register<T>(OrseisOptions options, TypeHandler<T> handler) => options.AddTypeHandler(handler);
        }
        """;

    [Fact]
    public async Task A_row_type_the_compilation_registers_a_type_handler_for_is_not_warned_about()
    {
        var diagnostics = await Compiler.AnalyzeAsync(Handled, new NoShapeAnalyzer(), Aot);

        // Money (abstract), Settings (required members, as a type argument and by typeof), Point? (a struct with required
        // members) and Money as a part of a multi-mapped row are read by their handlers; Unhandled's handler is registered
        // through a type parameter, which the compilation cannot see through.
        string message = Assert.Single(diagnostics).GetMessage();
        Assert.StartsWith("Row type Unhandled gets no generated shape (it has required members", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_the_registration_the_same_row_types_are_warned_about()
    {
        string unregistered = Handled
            .Replace(".AddTypeHandler(new MoneyHandler())", "", StringComparison.Ordinal)
            .Replace(".AddTypeHandler(new JsonHandler<Settings>())", "", StringComparison.Ordinal)
            .Replace(".AddTypeHandler(new PointHandler())", "", StringComparison.Ordinal);

        var diagnostics = await Compiler.AnalyzeAsync(unregistered, new NoShapeAnalyzer(), Aot);

        string[] messages = [.. diagnostics.Select(d => d.GetMessage()).Order(StringComparer.Ordinal)];
        Assert.Collection(messages,
            m => Assert.StartsWith("Row type Money gets no generated shape (it is an abstract class", m, StringComparison.Ordinal),
            m => Assert.StartsWith("Row type Money gets no generated shape (it is an abstract class", m, StringComparison.Ordinal),
            m => Assert.StartsWith("Row type Point? gets no generated shape (its struct Point gets no shape", m, StringComparison.Ordinal),
            m => Assert.StartsWith("Row type Settings gets no generated shape (it has required members", m, StringComparison.Ordinal),
            m => Assert.StartsWith("Row type Settings gets no generated shape (it has required members", m, StringComparison.Ordinal),
            m => Assert.StartsWith("Row type Unhandled gets no generated shape (it has required members", m, StringComparison.Ordinal));
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
