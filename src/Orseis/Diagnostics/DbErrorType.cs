using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Reflection;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>error.type</c> and <c>db.response.status_code</c> of a failure, as the OpenTelemetry database conventions
/// define them per system: MySQL's and SQL Server's is the server's error number (<c>1146</c>, <c>208</c>: the
/// <c>Number</c> of MySqlConnector's and MySql.Data's <c>MySqlException</c> and of SqlClient's <c>SqlException</c>),
/// PostgreSQL's its SQLSTATE (<see cref="DbException.SqlState"/>);
/// the code is looked for on the error and on the provider error Orseis wrapped (a broken connection, a timeout).
/// Without a code, <c>error.type</c> is the exception's full type name. Never a message or a value. Failure path only.
/// </summary>
internal static class DbErrorType
{
    private static readonly ConcurrentDictionary<Type, PropertyInfo?> Numbers = new();

    /// <summary>The <c>error.type</c> of <paramref name="error"/>; <paramref name="statusCode"/> the server's code, if any.</summary>
    public static string Of(Exception error, out string? statusCode)
    {
        statusCode = (error as DbException ?? error.InnerException as DbException) is { } db ? Code(db) : null;
        return statusCode ?? error.GetType().FullName ?? "_OTHER";
    }

    private static string? Code(DbException error)
    {
        if (Numbers.GetOrAdd(error.GetType(), ErrorNumber) is { } number && number.GetValue(error) is int value)
            return value > 0 ? value.ToString(CultureInfo.InvariantCulture) : null;
        return error.SqlState is { Length: > 0 } state ? state : null;
    }

    /// <summary>
    /// The <c>int Number</c> of a MySQL or SQL Server provider's exception (<see cref="ProviderTraits.ErrorNumberType"/>,
    /// read by name: no provider is referenced): the conventions' status code for both systems is the error number (MySQL's
    /// 1146, SQL Server's 208), not the SQLSTATE.
    /// </summary>
    [UnconditionalSuppressMessage("Trimming", "IL2070", Justification =
        "Read by name from the provider's type: a member the trimmer removed reads as null, and what it gives" +
        " is left out, as for a provider without it.")]
    private static PropertyInfo? ErrorNumber(Type type) =>
        ProviderTraits.For(type).ErrorNumberType is { } name && type.FullName == name
            ? type.GetProperty("Number", typeof(int))
            : null;
}
