using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Binding;

/// <summary>
/// Whether a parameter value's type is one the command's provider can send. A type it does not send (a class of the
/// application's own, an anonymous object, a tuple, a <see cref="Uri"/> or <see cref="Version"/> on most providers) is
/// refused before the provider sees it, naming the parameter and the type: the provider's own error would quote the
/// value (MySqlConnector's does), name no parameter (SQLite's, Npgsql's), or the provider would store its
/// <c>ToString()</c> text (MySql.Data), and a value never appears in Orseis' messages.
/// </summary>
/// <remarks>
/// Sendable: types whose <see cref="TypeCode"/> is not <see cref="TypeCode.Object"/> (numbers, text, <see cref="DateTime"/>),
/// the provider's own types, the runtime's types the provider sends (<see cref="ProviderTraits.SendsFrameworkType"/>, a
/// provider fact), and the types of assemblies that a loaded assembly of the provider's family references (its plugins:
/// Npgsql.NodaTime makes NodaTime's types sendable). A type handler registered for the type sends anything else.
/// </remarks>
internal static class SendableTypes
{
    private static readonly ConcurrentDictionary<(Type Type, Assembly Provider), bool> Known = new();

    /// <summary>True when <paramref name="value"/> may go to <paramref name="command"/>'s provider as it is.</summary>
    public static bool Accepts(DbCommand command, object value)
    {
        Type type = value.GetType();
        if (Type.GetTypeCode(type) != TypeCode.Object || type == typeof(byte[]) || type == typeof(Guid))
            return true;
        Assembly provider = command.GetType().Assembly;
        return type.Assembly == provider ||
               Known.GetOrAdd((type, provider), static (key, cmd) => Decide(key.Type, ProviderTraits.Of(cmd), key.Provider), command);
    }

    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification =
        "A provider plugin's assembly references are read to accept its types; where the trimmer removed " +
        "them, the type is refused, naming it (never sent wrong).")]
    private static bool Decide(Type type, ProviderTraits traits, Assembly provider)
    {
        if (type.IsDefined(typeof(CompilerGeneratedAttribute), inherit: false) || typeof(ITuple).IsAssignableFrom(type))
            return false;
        if (type.Assembly == typeof(object).Assembly || IsFramework(type.Assembly.GetName().Name))
            return traits.SendsFrameworkType(type);

        // A provider's plugin (Npgsql.NodaTime, Npgsql.NetTopologySuite) references the assembly of the types it sends.
        string family = provider.GetName().Name ?? "";
        string wanted = type.Assembly.GetName().Name ?? "";
        foreach (Assembly loaded in AppDomain.CurrentDomain.GetAssemblies())
        {
            if (loaded.GetName().Name is not { } name || !name.StartsWith(family, StringComparison.Ordinal))
                continue;
            foreach (AssemblyName reference in loaded.GetReferencedAssemblies())
            {
                if (reference.Name == wanted)
                    return true;
            }
        }

        return false;
    }

    private static bool IsFramework(string? name) =>
        name is "netstandard" or "mscorlib" or "System" ||
        name?.StartsWith("System.", StringComparison.Ordinal) == true ||
        name?.StartsWith("Microsoft.", StringComparison.Ordinal) == true;
}
