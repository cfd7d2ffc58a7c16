namespace Orseis.Analyzers.Tests;

public sealed class ShapeGeneratorTests
{
    internal const string ProgramText =
        """
        Database db = null!;
        db.Query<User>("select id, name from users where id > @min", new { min = 1L, tags = new[] { "a" } });
        db.Query<(long Id, string Name)>("select id, name from users");
        db.QuerySingle<Account>("select 1 as id");
        db.Query<Hidden>("select 1 as id");
        db.Execute("insert into users (name) values (@name)", new[] { new User(0, "a") });

        public sealed record User(long Id, string Name);
        public sealed class Account { public required long Id { get; set; } }
        public sealed class Hidden { private Hidden() { } public long Id { get; private set; } public int Count { get; } }
        """;

    [Fact]
    public void The_generated_shapes_compile_with_the_program()
    {
        (_, var errors) = Compiler.Generate(ProgramText);

        Assert.Empty(errors);
    }

    [Fact]
    public void Records_tuples_hidden_constructors_and_anonymous_arguments_get_shapes()
    {
        (string generated, _) = Compiler.Generate(ProgramText);

        Assert.Contains("ObjectShape<global::User>", generated, StringComparison.Ordinal);
        Assert.Contains("TupleShape<(long Id, string Name)>", generated, StringComparison.Ordinal);
        Assert.Contains("UnsafeAccessorKind.Constructor", generated, StringComparison.Ordinal);
        Assert.Contains("Name = \"<Count>k__BackingField\"", generated, StringComparison.Ordinal);
        Assert.Contains("AddArguments(new { min = default(long), tags = default(string[]) }", generated, StringComparison.Ordinal);
        Assert.Contains("AddArguments(default(global::User)", generated, StringComparison.Ordinal);
    }

    [Fact]
    public void A_type_generated_code_cannot_construct_exactly_gets_no_shape_and_stays_compiled()
    {
        (string generated, _) = Compiler.Generate(ProgramText);

        Assert.DoesNotContain("ObjectShape<global::Account>", generated, StringComparison.Ordinal);
    }
}
