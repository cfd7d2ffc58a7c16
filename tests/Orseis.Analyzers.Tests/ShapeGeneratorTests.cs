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

    [Fact]
    public void A_nullable_struct_row_gets_its_structs_shape_wrapped_and_an_output_member_its_accessors()
    {
        (string generated, var errors) = Compiler.Generate(
            """
            Database db = null!;
            var account = new Account();
            db.QueryFirstOrDefault<Point?>("select 1 as x, 2 as y");
            db.Execute("call p(@Id)", new ParameterBag()
                .Output(account, a => a.Id).Output(account, a => a.Note).Output(account, a => a.Home!.City).Output(account, a => a.Count)
                .Output(account, a => a.Computed));

            public readonly struct Point { public long X { get; init; } public long Y { get; } }
            public sealed class Account
            {
                public int Id { get; set; }
                public string? Note { get; private set; }
                public Address? Home { get; set; }
                public int Count;
                public int Computed => Id;
            }
            public sealed class Address { public string? City { get; set; } }
            """);

        Assert.Empty(errors);
        Assert.Contains("ObjectShape<global::Point>", generated, StringComparison.Ordinal);
        Assert.Contains("AddNullableRow<global::Point>()", generated, StringComparison.Ordinal);
        Assert.Contains("AddOutput<global::Account, int>(\"Id\"", generated, StringComparison.Ordinal);
        Assert.Contains("AddOutput<global::Account, string>(\"Home.City\"", generated, StringComparison.Ordinal);
        Assert.Contains("AddOutput<global::Account, int>(\"Count\"", generated, StringComparison.Ordinal);
        Assert.Contains("Name = \"set_Note\")]", generated, StringComparison.Ordinal);
        Assert.DoesNotContain("\"Computed\"", generated, StringComparison.Ordinal); // no setter: the runtime refuses it
    }

    [Fact]
    public void A_registered_type_handler_gets_the_one_column_reads_of_its_type_and_of_its_nullable_struct()
    {
        (string generated, var errors) = Compiler.Generate(NoShapeTests.Handled);

        Assert.Empty(errors);
        // What a part of a multi-mapped row and a nullable read look up under Native AOT; a single row of the type needs none.
        Assert.Contains("AddScalar<global::Money>(global::Orseis.Shapes.ShapeValue.Of<global::Money>())", generated, StringComparison.Ordinal);
        Assert.Contains("AddScalar<global::Settings>(global::Orseis.Shapes.ShapeValue.Of<global::Settings>())", generated, StringComparison.Ordinal);
        Assert.Contains("AddScalar<global::Point>(global::Orseis.Shapes.ShapeValue.Of<global::Point>())", generated, StringComparison.Ordinal);
        Assert.Contains("AddScalar<global::Point?>(global::Orseis.Shapes.ShapeValue.Nullable<global::Point>())", generated, StringComparison.Ordinal);
        Assert.DoesNotContain("AddScalar<global::Money?>", generated, StringComparison.Ordinal);
        // Through a type parameter nothing is known.
        Assert.DoesNotContain("AddScalar<global::Unhandled>", generated, StringComparison.Ordinal);
    }
}
