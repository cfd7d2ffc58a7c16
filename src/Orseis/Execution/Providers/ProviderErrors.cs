using System.Collections.Concurrent;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Reflection;

namespace Orseis.Execution.Providers;

/// <summary>
/// Reads a provider's exceptions without referencing its package: whether one is of a provider type (by full name, its
/// own or a base type's), and its error code or SQLSTATE through the provider's public properties, found once per
/// exception type. <see cref="OpenFailure"/> reads open failures with it, <see cref="ServerTransactions"/> statement failures.
/// </summary>
internal static class ProviderErrors
{
    private static readonly ConcurrentDictionary<(Type Type, string Name), PropertyInfo?> Properties = new();

    internal static bool IsType(Exception error, string fullName)
    {
        for (Type? type = error.GetType(); type is not null && type != typeof(Exception); type = type.BaseType)
        {
            if (type.FullName == fullName)
                return true;
        }

        return false;
    }

    /// <summary>
    /// An integer (or enum) property of the provider's exception, declared on its own type: MySqlConnector's
    /// <c>ErrorCode</c> hides <see cref="System.Runtime.InteropServices.ExternalException.ErrorCode"/> with an enum, so the
    /// most derived declaration is the one read. Null when the type has no such property.
    /// </summary>
    internal static int? ReadInt(Exception error, string name)
    {
        return Property(error, name)?.GetValue(error) switch
        {
            int number => number,
            Enum code => Convert.ToInt32(code, CultureInfo.InvariantCulture),
            _ => null,
        };
    }

    /// <summary>A string property of the provider's exception (Npgsql's <c>SqlState</c>); null when the type has none.</summary>
    internal static string? ReadString(Exception error, string name) => Property(error, name)?.GetValue(error) as string;

    [UnconditionalSuppressMessage("Trimming", "IL2075", Justification =
        "Read by name from the provider's type: a member the trimmer removed reads as null, and what it gives" +
        " is left out, as for a provider without it.")]
    [UnconditionalSuppressMessage("Trimming", "IL2080", Justification =
        "Read by name from the provider's type: a member the trimmer removed reads as null, and what it gives" +
        " is left out, as for a provider without it.")]
    private static PropertyInfo? Property(Exception error, string name) =>
        Properties.GetOrAdd((error.GetType(), name), static key =>
        {
            for (Type? type = key.Type; type is not null; type = type.BaseType)
            {
                if (type.GetProperty(key.Name, BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly) is { } found)
                    return found;
            }

            return null;
        });
}
