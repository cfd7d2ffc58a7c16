// Types standing in for provider types in ProviderTraits' tests: only their namespaces matter, nothing else is used.
#pragma warning disable CA1050 // GlobalNamespaceType is in no namespace on purpose

public sealed class GlobalNamespaceType;

namespace Npgsql.Stand
{
    public sealed class In;
}

namespace MySqlConnector.Stand
{
    public sealed class In;
}

namespace MySql.Data.Stand
{
    public sealed class In;
}

namespace Microsoft.Data.SqlClient.Stand
{
    public sealed class In;
}

namespace System.Data.SqlClient.Stand
{
    public sealed class In;
}

namespace System.Data.SQLite.Stand
{
    public sealed class In;
}
