using System.Globalization;

namespace Orseis.Samples.Fleet;

/// <summary>The fleet sample's command line; a bad value is refused with a message naming the option.</summary>
internal sealed record FleetOptions(
    string ConnectionString, bool Postgres, int Port, string PoolName, int Sessions, int Workers, int HoldMs, double DurationSeconds)
{
    public const string Usage =
        "usage: Orseis.Samples.Fleet (--mysql CS | --postgres CS) --port N [--pool-name NAME] [--sessions N] [--workers N] "
        + "[--hold-ms N] [--duration SECONDS]";

    public static FleetOptions Parse(string[] args)
    {
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        for (int i = 0; i < args.Length; i++)
        {
            string name = args[i];
            if (name is not ("--mysql" or "--postgres" or "--port" or "--pool-name" or "--sessions" or "--workers" or "--hold-ms" or "--duration"))
                throw new ArgumentException($"unknown option '{name}'");
            if (i + 1 >= args.Length)
                throw new ArgumentException($"{name} needs a value");
            values[name] = args[++i];
        }

        bool postgres = values.ContainsKey("--postgres");
        if (postgres == values.ContainsKey("--mysql"))
            throw new ArgumentException("give exactly one of --mysql and --postgres (a connection string)");
        if (!values.ContainsKey("--port"))
            throw new ArgumentException("--port is required (the port the metrics are served on)");
        return new FleetOptions(
            values[postgres ? "--postgres" : "--mysql"],
            postgres,
            Number(values, "--port", 0, 1, 65535),
            values.GetValueOrDefault("--pool-name") ?? "fleet",
            Number(values, "--sessions", 0, 0, 1000),
            Number(values, "--workers", 2, 0, 1000),
            Number(values, "--hold-ms", 20, 0, 60_000),
            values.TryGetValue("--duration", out string? duration) ? Seconds(duration) : 0);
    }

    private static int Number(Dictionary<string, string> values, string name, int fallback, int min, int max)
    {
        if (!values.TryGetValue(name, out string? text))
            return fallback;
        if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int value) || value < min || value > max)
            throw new ArgumentException($"{name} must be a whole number from {min} to {max}");
        return value;
    }

    private static double Seconds(string text)
    {
        if (!double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out double value) || value <= 0 || value > 86_400)
            throw new ArgumentException("--duration must be a number of seconds above 0, at most 86400");
        return value;
    }
}
