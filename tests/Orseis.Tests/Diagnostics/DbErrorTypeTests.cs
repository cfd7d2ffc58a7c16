using System.Data.Common;
using Microsoft.Data.SqlClient;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// How a failure is typed for <c>error.type</c> and <c>db.response.status_code</c>: a provider's error number where the
/// conventions ask for one, never a number that is not the server's. (The numbers a real server sends, 1146 and 208,
/// are checked against MariaDB and SQL Server in the integration tests.)
/// </summary>
public sealed class DbErrorTypeTests
{
    [Fact]
    public void A_SqlClient_failure_the_server_never_numbered_is_typed_by_its_exception_not_by_number_zero()
    {
        // A connect refused on loopback: a real SqlException whose Number is 0 (no server answered).
        using var connection = new SqlConnection("Server=tcp:127.0.0.1,1;Connect Timeout=1;Encrypt=false;Pooling=false");
        SqlException error = Assert.Throws<SqlException>(connection.Open);
        Assert.Equal(0, error.Number);

        string type = DbErrorType.Of(error, out string? statusCode);

        Assert.Equal(typeof(SqlException).FullName, type);
        Assert.Null(statusCode);
    }

    [Fact]
    public void A_provider_error_wrapped_by_Orseis_gives_its_code_and_an_unknown_failure_its_type_name()
    {
        var provider = new CodedError("40001");
        Assert.Equal("40001", DbErrorType.Of(new InvalidOperationException("wrapped", provider), out string? wrapped));
        Assert.Equal("40001", wrapped);

        Assert.Equal(typeof(TimeoutException).FullName, DbErrorType.Of(new TimeoutException(), out string? none));
        Assert.Null(none);
    }

    private sealed class CodedError(string state) : DbException("failed")
    {
        public override string SqlState => state;
    }
}
