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

    [Fact]
    public void Single_column_rows_and_types_named_by_typeof_get_scalar_shapes_and_run_time_row_types()
    {
        (string generated, var errors) = Compiler.Generate(
            """
            Database db = null!;
            db.Query<long>("select id from users");
            db.Query<int?>("select age from users");
            db.Query<System.Guid>("select key from users");
            db.Query(typeof(User), "select id, name from users");
            db.Query<object>("select id from users");

            public sealed record User(long Id, string Name);
            """);

        Assert.Empty(errors);
        Assert.Contains("AddScalar<long>(global::Orseis.Shapes.ShapeValue.Of<long>())", generated, StringComparison.Ordinal);
        Assert.Contains("AddScalar<int?>(global::Orseis.Shapes.ShapeValue.Nullable<int>())", generated, StringComparison.Ordinal);
        Assert.Contains("AddScalar<global::System.Guid>(", generated, StringComparison.Ordinal);
        Assert.Contains("AddRuntimeRow<global::User>()", generated, StringComparison.Ordinal);
        Assert.Contains("ObjectShape<global::User>", generated, StringComparison.Ordinal);
        Assert.DoesNotContain("AddScalar<object>", generated, StringComparison.Ordinal);
    }
}
