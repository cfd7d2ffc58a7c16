using System.Data;
using System.Linq.Expressions;
using Orseis.Mapping;

namespace Orseis;

// Outputs written back to an object's members (Dapper's DynamicParameters.Output).
public sealed partial class ParameterBag
{
    /// <summary>The size given to a string output when none is: Dapper's default string size.</summary>
    internal const int DefaultStringSize = 4000;

    /// <summary>
    /// Adds an output parameter whose value, once a call with this bag completes, is written to a member of
    /// <paramref name="target"/>: Dapper's <c>DynamicParameters.Output(target, x =&gt; x.Id)</c>.
    /// </summary>
    /// <typeparam name="T">The target's type, a class.</typeparam>
    /// <param name="target">The object whose member receives the value.</param>
    /// <param name="member">The member: a property or field (<c>x =&gt; x.Id</c>), or a chain of them
    /// (<c>x =&gt; x.Address.Id</c>).</param>
    /// <param name="dbType">The database type; by default the member's type says it (<c>int</c>: <see cref="DbType.Int32"/>).</param>
    /// <param name="size">The size of a variable-length output; a string member gets 4000 (or its value's length, if longer) by
    /// default, as in Dapper.</param>
    /// <param name="direction"><see cref="ParameterDirection.InputOutput"/> (the default: the member's current value is sent when the
    /// call starts), <see cref="ParameterDirection.Output"/>, or <see cref="ParameterDirection.ReturnValue"/>.</param>
    /// <param name="name">The parameter's name; by default the members' names joined (<c>Id</c>, <c>AddressId</c>), as in Dapper.</param>
    /// <returns>This object, for chaining.</returns>
    /// <remarks>
    /// The value is converted to the member's type as a column would be (nullable types, enums, numbers of another width,
    /// type handlers). It is written when the call completes: a buffered call when it returns, a stream once it has run
    /// to its end, a <see cref="GridReader"/> once every result set was read and it is released. A value that cannot be
    /// converted throws an <see cref="InvalidOperationException"/> naming the parameter and the member at that point; the
    /// other members are written all the same. The output is also readable with <see cref="Get{T}(string)"/>.
    /// </remarks>
    /// <exception cref="ArgumentException"><paramref name="member"/> is not a settable member chain, the direction is
    /// <see cref="ParameterDirection.Input"/>, or the name is already added.</exception>
    public ParameterBag Output<T>(
        T target,
        Expression<Func<T, object?>> member,
        DbType? dbType = null,
        int? size = null,
        ParameterDirection direction = ParameterDirection.InputOutput,
        string? name = null)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(member);
        if (direction is not (ParameterDirection.InputOutput or ParameterDirection.Output or ParameterDirection.ReturnValue))
        {
            throw new ArgumentException(
                $"An output member needs the direction InputOutput, Output or ReturnValue, not {direction}.", nameof(direction));
        }

        OutputMember compiled = OutputMember.For(member);
        string bare = Bare(name ?? compiled.DefaultName);
        if (bare.Length == 0)
            throw new ArgumentException($"Parameter name '{name}' has nothing after its prefix.", nameof(name));
        if (dbType is null && DbTypes.TryGet(compiled.Type, out DbType inferred))
            dbType = inferred;
        if (size is null && compiled.Type == typeof(string))
        {
            int length = direction == ParameterDirection.InputOutput && compiled.Read(target, bare) is string s ? s.Length : 0;
            size = Math.Max(DefaultStringSize, length);
        }

        AddEntry(new Entry(bare, null, dbType, direction, size) { Member = compiled, Target = target });
        return this;
    }

    /// <summary>Writes the outputs read back to their members; a failure is kept for <see cref="ThrowIfOutputFailed(object?)"/>.</summary>
    private void WriteTargets()
    {
        foreach (Entry entry in _entries)
        {
            if (entry.Member is not { } member)
                continue;
            try
            {
                member.Write(entry.Target!, this, entry.Name);
            }
            catch (Exception error) when (error is InvalidOperationException or ArgumentException)
            {
                _outputFailed ??= new InvalidOperationException(
                    $"Output parameter '{entry.Name}' could not be written to member {member.Path} " +
                    $"({ScalarTypes.Describe(member.Type)}): " +
                    $"{error.Message}", error);
            }
        }
    }

    /// <summary>
    /// Throws the failure to write an output to its member (<see cref="Output{T}"/>) of the call that just completed with
    /// <paramref name="args"/>, if there was one; called once the call has given its connection back.
    /// </summary>
    internal static void ThrowIfOutputFailed(object? args)
    {
        if (args is ParameterBag { _outputFailed: { } failed } bag)
        {
            bag._outputFailed = null;
            throw failed;
        }
    }
}
