using System.Collections;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;

namespace Orseis.Execution.Calls;

/// <summary>
/// The reader of <see cref="SqlRunner.ExecuteReader(string, object?, TimeSpan?)"/>: the provider's reader, read by the caller,
/// over a call that holds its connection until the reader is disposed (or closed). A failed read is reported as any
/// Orseis call's failure (a broken connection, a command timeout); disposing it before the end asks the server to stop
/// sending the rest, and gives the connection back as the call's last step.
/// </summary>
internal sealed class LeasedReader(GridReader call) : DbDataReader
{
    private readonly DbDataReader _inner = call.Inner;

    public override int Depth => _inner.Depth;

    public override int FieldCount => _inner.FieldCount;

    public override bool HasRows => _inner.HasRows;

    public override bool IsClosed => _inner.IsClosed;

    public override int RecordsAffected => _inner.RecordsAffected;

    public override int VisibleFieldCount => _inner.VisibleFieldCount;

    public override object this[int ordinal] => _inner[ordinal];

    public override object this[string name] => _inner[name];

    public override bool Read()
    {
        try
        {
            return _inner.Read();
        }
        catch (Exception error) when (call.ReadFailed(error, CancellationToken.None) is { } reported)
        {
            throw reported;
        }
    }

    public override async Task<bool> ReadAsync(CancellationToken cancellationToken)
    {
        try
        {
            return await _inner.ReadAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error) when (call.ReadFailed(error, cancellationToken) is { } reported)
        {
            throw reported;
        }
    }

    public override bool NextResult()
    {
        try
        {
            return Moved(_inner.NextResult());
        }
        catch (Exception error) when (call.ReadFailed(error, CancellationToken.None) is { } reported)
        {
            throw reported;
        }
    }

    public override async Task<bool> NextResultAsync(CancellationToken cancellationToken)
    {
        try
        {
            return Moved(await _inner.NextResultAsync(cancellationToken).ConfigureAwait(false));
        }
        catch (Exception error) when (call.ReadFailed(error, cancellationToken) is { } reported)
        {
            throw reported;
        }
    }

    private bool Moved(bool next)
    {
        if (!next)
            call.Consumed();
        return next;
    }

    public override void Close() => call.Dispose();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
            call.Dispose();
        base.Dispose(disposing);
    }

    public override async ValueTask DisposeAsync()
    {
        await call.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false); // Dispose(true) next: the call is already ended, a second end does nothing
    }

    public override bool GetBoolean(int ordinal) => _inner.GetBoolean(ordinal);

    public override byte GetByte(int ordinal) => _inner.GetByte(ordinal);

    public override long GetBytes(int ordinal, long dataOffset, byte[]? buffer, int bufferOffset, int length) =>
        _inner.GetBytes(ordinal, dataOffset, buffer, bufferOffset, length);

    public override char GetChar(int ordinal) => _inner.GetChar(ordinal);

    public override long GetChars(int ordinal, long dataOffset, char[]? buffer, int bufferOffset, int length) =>
        _inner.GetChars(ordinal, dataOffset, buffer, bufferOffset, length);

    public override string GetDataTypeName(int ordinal) => _inner.GetDataTypeName(ordinal);

    public override DateTime GetDateTime(int ordinal) => _inner.GetDateTime(ordinal);

    public override decimal GetDecimal(int ordinal) => _inner.GetDecimal(ordinal);

    public override double GetDouble(int ordinal) => _inner.GetDouble(ordinal);

    public override IEnumerator GetEnumerator() => new DbEnumerator(this, closeReader: false);

    [return: DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicFields | DynamicallyAccessedMemberTypes.PublicProperties)]
    public override Type GetFieldType(int ordinal) => _inner.GetFieldType(ordinal);

    public override T GetFieldValue<T>(int ordinal) => _inner.GetFieldValue<T>(ordinal);

    public override Task<T> GetFieldValueAsync<T>(int ordinal, CancellationToken cancellationToken) =>
        _inner.GetFieldValueAsync<T>(ordinal, cancellationToken);

    public override float GetFloat(int ordinal) => _inner.GetFloat(ordinal);

    public override Guid GetGuid(int ordinal) => _inner.GetGuid(ordinal);

    public override short GetInt16(int ordinal) => _inner.GetInt16(ordinal);

    public override int GetInt32(int ordinal) => _inner.GetInt32(ordinal);

    public override long GetInt64(int ordinal) => _inner.GetInt64(ordinal);

    public override string GetName(int ordinal) => _inner.GetName(ordinal);

    public override int GetOrdinal(string name) => _inner.GetOrdinal(name);

    [return: DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicFields | DynamicallyAccessedMemberTypes.PublicProperties)]
    public override Type GetProviderSpecificFieldType(int ordinal) => _inner.GetProviderSpecificFieldType(ordinal);

    public override object GetProviderSpecificValue(int ordinal) => _inner.GetProviderSpecificValue(ordinal);

    public override int GetProviderSpecificValues(object[] values) => _inner.GetProviderSpecificValues(values);

    public override System.Data.DataTable? GetSchemaTable() => _inner.GetSchemaTable();

    public override Stream GetStream(int ordinal) => _inner.GetStream(ordinal);

    public override string GetString(int ordinal) => _inner.GetString(ordinal);

    public override TextReader GetTextReader(int ordinal) => _inner.GetTextReader(ordinal);

    public override object GetValue(int ordinal) => _inner.GetValue(ordinal);

    public override int GetValues(object[] values) => _inner.GetValues(values);

    public override bool IsDBNull(int ordinal) => _inner.IsDBNull(ordinal);

    public override Task<bool> IsDBNullAsync(int ordinal, CancellationToken cancellationToken) =>
        _inner.IsDBNullAsync(ordinal, cancellationToken);
}
