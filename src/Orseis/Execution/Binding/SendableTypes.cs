using System.Collections.Concurrent;
using System.Data.Common;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace Orseis.Execution;

/// <summary>
/// Whether a parameter value's type is one a provider can send. A type no provider knows (a class of the application's
/// own, an anonymous object, a tuple) is refused before the provider sees it: the provider's own error would quote the
/// value (MySqlConnector's does), and a value never appears in Orseis' messages.
/// </summary>
/// <remarks>
/// Sendable: the runtime's types (primitives, string, decimal, Guid, the date and time types, byte arrays, and the
/// framework's others, such as <c>IPAddress</c> or <c>JsonDocument</c> that Npgsql sends), the provider's own types,
/// and the types of assemblies that a loaded assembly of the provider's family references (its plugins: Npgsql.NodaTime
/// makes NodaTime's types sendable). A type handler registered for the type sends anything else.
/// </remarks>
internal static class SendableTypes
{
    private static readonly ConcurrentDictionary<(Type Type, Assembly Provider), bool> Known = new();

    /// <summary>True when <paramref name="value"/> may go to <paramref name="command"/>'s provider as it is.</summary>
    public static bool Accepts(DbCommand command, object value)
    {
        Type type = value.GetType();
        if (Type.GetTypeCode(type) != TypeCode.Object || type.Assembly == typeof(object).Assembly)
            return true;
        Assembly provider = command.GetType().Assembly;
        return type.Assembly == provider || Known.GetOrAdd((type, provider), static key => Decide(key.Type, key.Provider));
    }

    private static bool Decide(Type type, Assembly provider)
    {
        if (type.IsDefined(typeof(CompilerGeneratedAttribute), inherit: false) || typeof(ITuple).IsAssignableFrom(type))
            return false;
        if (IsFramework(type.Assembly.GetName().Name))
            return true;

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
