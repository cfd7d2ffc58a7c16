using System.Diagnostics.CodeAnalysis;

namespace Orseis.Execution.Calls;

/// <summary>
/// The errors that hot methods (the binder, list expansion, execute-many, value conversion) raise, built by these
/// factories so those methods stay small (<c>throw HotPathErrors.X(...)</c>): the message text and its formatting are
/// not inlined into every call, and the compiler still sees the throw. Each names what was wrong
/// (the parameter, the type) and never a value. <see cref="ArgumentException"/>s name the public call's parameter
/// (<see cref="PublicParameters.Args"/>), since that is what the caller passed.
/// </summary>
[SuppressMessage("Usage", "CA2208", Justification = "An ArgumentException here is about the public call's 'args', not this method's.")]
internal static class HotPathErrors
{
    public static ArgumentException DictionaryKeyNotString(Type keyType) =>
        new ArgumentException($"Parameter dictionaries must have string keys; found a key of type {keyType}.", PublicParameters.Args);

    public static ArgumentException HandlerFailed(Type handlerType, string parameterName, Type valueType, Exception error) =>
        new ArgumentException(
            $"Type handler {handlerType.Name} failed to set parameter '{parameterName}' (a {valueType.Name}): " +
            $"it threw {error.GetType().Name} (the inner exception).", PublicParameters.Args, error);

    public static ArgumentException ListWithoutPlace(string name) =>
        new ArgumentException(
            $"Parameter '{name}' is a list, but the SQL has no '@{name}' to expand it into. Write 'IN @{name}' or 'IN (@{name})'.",
            PublicParameters.Args);

    public static ArgumentException NullArgumentItem(int index) =>
        new ArgumentException(
            $"Item {index} of the argument sequence is null; each item must be an object holding one statement's arguments.",
            PublicParameters.Args);

    public static ArgumentException ScalarArgumentItems(string described) =>
        new ArgumentException(
            $"The arguments are a sequence of {described} values. A sequence runs the statement once per item " +
            "and each item must be an object holding that run's arguments (new[] { new { id = 1 }, new { id = 2 } }). " +
            "To pass a list for 'in @ids', wrap it in an object: new { ids }.", PublicParameters.Args);

    public static ArgumentException SequenceNotExecute(Type type) =>
        new ArgumentException(
            $"The arguments are a sequence ({Describe(type)}). Only Execute and ExecuteAsync run a statement once per item of " +
            "a sequence of argument objects (execute-many); the other calls take one object whose properties are the " +
            "parameters. To pass a list for 'in @ids', wrap it in an object: new { ids }.", PublicParameters.Args);

    public static ArgumentException TupleArguments(Type type) =>
        new ArgumentException(
            $"The arguments are a tuple ({Describe(type)}), whose element names exist only at compile time: its parameters " +
            "would be @Item1, @Item2... Pass an anonymous object instead: new { id, name }.", PublicParameters.Args);

    public static ArgumentException UnsendableValue(string name, Type type) =>
        new ArgumentException(
            $"Parameter '{name}' is a {Describe(type)}, a type the provider cannot send. Pass a value the database stores " +
            $"(a number, text, a date), or register a TypeHandler<{type.Name}> (OrseisOptions.AddTypeHandler) that " +
            "converts it.", PublicParameters.Args);

    private static string Describe(Type type) => type.IsArray ? type.GetElementType()!.Name + "[]" : type.Name;

    public static InvalidCastException NotAnEnumName(Type enumType) =>
        new InvalidCastException($"The text is not a name of enum {enumType.Name}.");

    public static InvalidCastException FractionLost(Type source, Type target) =>
        new InvalidCastException($"The {source.Name} value has a fraction, which {target.Name} would lose.");
}
