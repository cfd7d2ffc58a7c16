namespace Orseis;

// Guards against the one way an interpolated string could splice values into SQL: passed together with an args
// object, it would bind to the (string sql, object? args) overloads, where the compiler formats the holes into the
// text. The guard overloads (generated: SqlRunner.Surface.*.cs) catch that call at compile time (error ORSEIS001) instead.
public abstract partial class SqlRunner
{
    private const string InterpolatedWithArgs =
        "An interpolated string passed with an args object would have its holes spliced into the SQL text. " +
        "Put each value in a hole (each hole becomes a parameter) and drop the args object, or pass a plain string with @name parameters and the args object.";

    private const string InterpolatedWithArgsId = "ORSEIS001";
}
