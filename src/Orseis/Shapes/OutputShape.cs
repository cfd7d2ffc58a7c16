namespace Orseis.Shapes;

/// <summary>
/// A generated output member (<see cref="ShapeRegistry.AddOutput{T, TValue}"/>): the last member's type, reads of the chain's
/// owners, and the boxed read and converting write of the last member, as <c>OutputMember</c> compiles them.
/// </summary>
internal sealed class OutputShape(
    Type type, Func<object, object?>[] owners, Func<object, object?> read, Action<object, ParameterBag, string> write)
{
    public Type Type { get; } = type;

    public Func<object, object?>[] Owners { get; } = owners;

    public Func<object, object?> Read { get; } = read;

    public Action<object, ParameterBag, string> Write { get; } = write;
}
