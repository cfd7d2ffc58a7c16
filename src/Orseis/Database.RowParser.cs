using System.Data.Common;

namespace Orseis;

/// <summary>Mapping rows of a reader the caller owns.</summary>
public sealed partial class Database
{
    /// <summary>
    /// The mapper Orseis would use for <typeparamref name="T"/> on <paramref name="reader"/>'s current result set, with
    /// this database's type handlers, for a reader the caller runs itself (a <c>DbCommand.ExecuteReader</c> of their own,
    /// a result set of several types told apart by a discriminator column). Compiled once per column layout and cached,
    /// as for Orseis' own calls. Call it once the reader is on a row (after the first <c>Read</c> that returned true), and
    /// again for each result set; the mapper reads the row the reader is on.
    /// </summary>
    /// <typeparam name="T">A class or record mapped by column name, or a scalar type read from the first column.</typeparam>
    /// <param name="reader">The reader, positioned on a row of the result set to map.</param>
    /// <returns>The mapper of that result set's rows; a column that cannot be read into its member throws a
    /// <see cref="MappingException"/> naming both.</returns>
    /// <example>
    /// <code>
    /// Func&lt;DbDataReader, Order&gt; read = null!;
    /// while (await reader.ReadAsync())
    /// {
    ///     read ??= db.RowParser&lt;Order&gt;(reader);
    ///     orders.Add(read(reader));
    /// }
    /// </code>
    /// </example>
    public Func<DbDataReader, T> RowParser<T>(DbDataReader reader)
    {
        ArgumentNullException.ThrowIfNull(reader);
        return Mapping.RowMapper<T>.Get(reader, "", Handlers);
    }
}
