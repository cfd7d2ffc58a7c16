using System.ComponentModel;

namespace Orseis.Shapes;

/// <summary>
/// For generated code: what Orseis needs to map rows to <typeparamref name="T"/> without reflection or run-time
/// compilation: its constructors and settable members (an object), or its elements (a value tuple). The Orseis source
/// generator writes one per row type it finds in Orseis calls and registers it with <see cref="ShapeRegistry"/>; the same
/// mapping rules then run over it as over a type read by reflection.
/// </summary>
/// <typeparam name="T">The row type.</typeparam>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class RowShape<T>
{
    internal RowShape(
        ShapeConstructor<T>[]? constructors, ShapeMember<T>[]? members, Func<T>? hidden, ShapeValue[]? elements,
        Func<RowArguments, T>? createTuple)
    {
        Constructors = constructors ?? [];
        Members = members ?? [];
        HiddenConstructor = hidden;
        Elements = elements;
        CreateTuple = createTuple;
    }

    internal ShapeConstructor<T>[] Constructors { get; }

    internal ShapeMember<T>[] Members { get; }

    internal Func<T>? HiddenConstructor { get; }

    internal ShapeValue[]? Elements { get; }

    internal Func<RowArguments, T>? CreateTuple { get; }
}
