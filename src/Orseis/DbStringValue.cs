using System.Data;
using System.Data.Common;

namespace Orseis;

/// <summary>
/// A string parameter with its shape spelled out: ANSI or Unicode, fixed or variable length, and its size (Dapper's
/// <c>DbString</c>). Use it as an argument's value (<c>new { code = new DbStringValue("AB", 4) { IsAnsi = true } }</c>),
/// a list element or a <see cref="ParameterBag"/> value, where the column's type matters to the server: an index on a
/// <c>varchar</c> column that SQL Server will not use for an <c>nvarchar</c> parameter, a <c>char(n)</c> comparison.
/// </summary>
/// <remarks>
/// The parameter's <see cref="DbType"/> is <see cref="DbType.AnsiString"/>, <see cref="DbType.AnsiStringFixedLength"/>,
/// <see cref="DbType.String"/> or <see cref="DbType.StringFixedLength"/>. Its size is <see cref="Length"/> when given;
/// otherwise, as in Dapper, 4000 for a value of up to 4000 characters (so SQL Server caches one plan for all of them)
/// and -1 (the provider's maximum) for a longer one. Unlike Dapper, a value longer than a given <see cref="Length"/> is
/// refused before anything is sent (providers would truncate it without a word), and a fixed length needs a
/// <see cref="Length"/>.
/// </remarks>
public sealed class DbStringValue
{
    /// <summary>The size a string up to that many characters gets when no <see cref="Length"/> is given (Dapper's).</summary>
    public const int DefaultLength = 4000;

    /// <summary>Creates a string parameter value.</summary>
    /// <param name="value">The text; null for NULL.</param>
    /// <param name="length">Its length (the column's, for a fixed length); null for Dapper's default size.</param>
    public DbStringValue(string? value, int? length = null)
    {
        if (length is < 1 and not -1)
            throw new ArgumentOutOfRangeException(nameof(length), length, "A length is at least 1, or -1 for the provider's maximum.");
        Value = value;
        Length = length;
    }

    /// <summary>The text; null for NULL.</summary>
    public string? Value { get; }

    /// <summary>The length sent as the parameter's size; null for Dapper's default (4000, or -1 beyond).</summary>
    public int? Length { get; }

    /// <summary>
    /// True for ANSI text (<c>varchar</c>, <c>char</c>), false (the default) for Unicode (<c>nvarchar</c>, <c>nchar</c>).
    /// </summary>
    public bool IsAnsi { get; init; }

    /// <summary>True for a fixed-length type (<c>char(n)</c>, <c>nchar(n)</c>); needs a <see cref="Length"/>.</summary>
    public bool IsFixedLength { get; init; }

    /// <summary>The shape, never the value (values stay out of logs and messages).</summary>
    /// <returns>A description such as <c>DbStringValue(AnsiStringFixedLength, Length 4)</c>.</returns>
    public override string ToString() =>
        $"DbStringValue({DbType}, Length {Length?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "default"})";

    private DbType DbType => IsAnsi
        ? IsFixedLength ? DbType.AnsiStringFixedLength : DbType.AnsiString
        : IsFixedLength ? DbType.StringFixedLength : DbType.String;

    /// <summary>Gives <paramref name="parameter"/> this value and shape.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Usage", "CA2208", Justification = "The error is about the public call's 'args'.")]
    internal void Apply(DbParameter parameter)
    {
        string name = parameter.ParameterName.TrimStart('@', ':', '?', '$');
        if (IsFixedLength && Length is null or -1)
        {
            throw new ArgumentException(
                $"Parameter '{name}' is a fixed-length DbStringValue without a Length: give the column's length.", PublicParameters.Args);
        }

        if (Value is not null && Length is > 0 and var limit && Value.Length > limit)
        {
            throw new ArgumentException(
                $"Parameter '{name}' is a DbStringValue longer than its Length ({limit}); the provider would cut it short without a word.",
                PublicParameters.Args);
        }

        parameter.DbType = DbType;
        parameter.Value = (object?)Value ?? DBNull.Value;
        parameter.Size = Length ?? (Value is null || Value.Length <= DefaultLength ? DefaultLength : -1);
    }
}
