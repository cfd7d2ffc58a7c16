using System.Collections;
using System.Collections.Specialized;
using System.Data;
using System.Data.Common;
using System.Net;
using System.Net.NetworkInformation;
using System.Numerics;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Orseis.Execution.Providers;

/// <summary>
/// Which of the runtime's own types each provider sends as a parameter value (<see cref="SendsFrameworkType"/>), as
/// measured by sending each one (the integration tests send a <see cref="Uri"/> and a <see cref="Version"/> on every
/// provider). Types whose <see cref="TypeCode"/> is not <see cref="TypeCode.Object"/> (numbers, text, <see cref="DateTime"/>,
/// enums) and the provider's own types are sendable everywhere and are not asked about.
/// </summary>
internal sealed partial class ProviderTraits
{
    /// <summary>
    /// True when the provider sends a value of the given type, a type of the runtime or of a <c>System.*</c> or
    /// <c>Microsoft.*</c> assembly, as what it is. False where it refuses it (its error may quote the value, as
    /// MySqlConnector's does) or sends its <c>ToString()</c> text (MySql.Data does, for any type it does not know).
    /// </summary>
    public readonly Func<Type, bool> SendsFrameworkType;

    /// <summary>A provider Orseis does not know: its own types are unknown too, so the runtime's are let through.</summary>
    private static bool AnyFrameworkType(Type type) => true;

    /// <summary>What every known provider sends (DateOnly and TimeOnly are converted first for those that predate them).</summary>
    private static bool Common(Type type) =>
        type == typeof(byte[]) || type == typeof(Guid) || type == typeof(TimeSpan) || type == typeof(DateOnly) || type == typeof(TimeOnly);

    /// <summary>Microsoft.Data.Sqlite: no mapping for anything else ("No mapping exists from object type ...").</summary>
    private static bool SqliteSends(Type type) => Common(type) || type == typeof(DateTimeOffset);

    /// <summary>
    /// MySqlConnector (https://mysqlconnector.net/param-type): its NotSupportedException for any other type ends with
    /// "Value: " and the value's text. Streams other than <see cref="MemoryStream"/> need a prepared command.
    /// </summary>
    private static bool MySqlConnectorSends(Type type) =>
        Common(type) || type == typeof(DateTimeOffset) || type == typeof(BigInteger) || type == typeof(StringBuilder) ||
        type == typeof(ReadOnlyMemory<byte>) || type == typeof(Memory<byte>) || type == typeof(ArraySegment<byte>) ||
        type == typeof(ReadOnlyMemory<char>) || type == typeof(MemoryStream);

    /// <summary>
    /// MySql.Data 8.0: any other type is sent as its <c>ToString()</c> text without a word (a <see cref="DateTimeOffset"/>
    /// in the current culture's format, a <see cref="JsonDocument"/> as its type name), so only these are sendable.
    /// </summary>
    private static bool MySqlDataSends(Type type) => Common(type);

    /// <summary>Npgsql: the runtime types its own type resolvers write without an NpgsqlDbType.</summary>
    private static bool NpgsqlSends(Type type) =>
        Common(type) || type == typeof(DateTimeOffset) || type == typeof(BigInteger) || type == typeof(char[]) ||
        type == typeof(ReadOnlyMemory<byte>) || type == typeof(Memory<byte>) || type == typeof(ArraySegment<byte>) ||
        type == typeof(ReadOnlyMemory<char>) || type == typeof(ArraySegment<char>) || type == typeof(BitArray) ||
        type == typeof(BitVector32) || type == typeof(PhysicalAddress) || type == typeof(JsonDocument) ||
        type == typeof(JsonElement) || typeof(JsonNode).IsAssignableFrom(type) || typeof(IPAddress).IsAssignableFrom(type) ||
        typeof(Stream).IsAssignableFrom(type);

    /// <summary>
    /// SqlClient (both): its own mapping of a value's type (SqlParameter's type inference), which refuses anything else with
    /// "No mapping exists from object type ..." (no value, no parameter name).
    /// </summary>
    private static bool SqlClientSends(Type type) =>
        Common(type) || type == typeof(DateTimeOffset) || type == typeof(char[]) ||
        type.Namespace == "System.Data.SqlTypes" || typeof(DataTable).IsAssignableFrom(type) ||
        typeof(DbDataReader).IsAssignableFrom(type) || typeof(Stream).IsAssignableFrom(type) ||
        typeof(TextReader).IsAssignableFrom(type) || typeof(System.Xml.XmlReader).IsAssignableFrom(type);
}
