using System.Reflection;

namespace Orseis.Tests.PublicApi;

/// <summary>
/// Tracks the public API in src/Orseis/PublicAPI.Shipped.txt and PublicAPI.Unshipped.txt (the analyzer that usually
/// does this is not served by this project's package mirror). A change to the public surface fails this test until the
/// files say so: run it with ORSEIS_UPDATE_PUBLIC_API=1 to rewrite PublicAPI.Unshipped.txt, then review the diff.
/// </summary>
public sealed class PublicApiTests
{
    [Fact]
    public void The_public_api_matches_the_tracked_files()
    {
        string folder = Path.Combine(RepositoryRoot(), "src", "Orseis");
        string shippedPath = Path.Combine(folder, "PublicAPI.Shipped.txt");
        string unshippedPath = Path.Combine(folder, "PublicAPI.Unshipped.txt");
        HashSet<string> shipped = Read(shippedPath);
        SortedSet<string> actual = new(PublicApiLister.List(typeof(Database).Assembly), StringComparer.Ordinal);

        if (Environment.GetEnvironmentVariable("ORSEIS_UPDATE_PUBLIC_API") == "1")
            File.WriteAllLines(unshippedPath, ["#nullable enable", .. actual.Where(line => !shipped.Contains(line))]);

        HashSet<string> tracked = [.. shipped, .. Read(unshippedPath)];
        string[] added = [.. actual.Where(line => !tracked.Contains(line))];
        string[] removed = [.. tracked.Where(line => !actual.Contains(line)).Order(StringComparer.Ordinal)];
        Assert.True(added.Length == 0 && removed.Length == 0,
            "The public API differs from PublicAPI.*.txt (rerun with ORSEIS_UPDATE_PUBLIC_API=1 to accept).\n" +
            $"Not tracked yet:\n  {string.Join("\n  ", added)}\nTracked but gone:\n  {string.Join("\n  ", removed)}");
    }

    [Fact]
    public void Every_public_type_is_in_the_orseis_namespaces()
    {
        foreach (Type type in typeof(Database).Assembly.GetExportedTypes())
            Assert.StartsWith("Orseis", type.Namespace, StringComparison.Ordinal);
    }

    private static HashSet<string> Read(string path) =>
        [.. File.ReadAllLines(path).Where(line => line.Length > 0 && !line.StartsWith('#'))];

    private static string RepositoryRoot()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Orseis.sln")))
                return dir.FullName;
        }

        throw new InvalidOperationException("Orseis.sln not found above " + AppContext.BaseDirectory);
    }
}

/// <summary>Lists public members one per line, with nullability, in a stable, diff-friendly text form.</summary>
internal static class PublicApiLister
{
    private static readonly NullabilityInfoContext s_nullability = new();

    public static IEnumerable<string> List(Assembly assembly)
    {
        const BindingFlags flags = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
        foreach (Type type in assembly.GetExportedTypes())
        {
            string name = Format(type);
            yield return $"{Kind(type)} {name}" + (type.BaseType is { } b && b != typeof(object) && b != typeof(ValueType) && b != typeof(Enum) ? " : " + Format(b) : "");
            foreach (MemberInfo member in type.GetMembers(flags))
            {
                string? line = member switch
                {
                    ConstructorInfo c => $"{name}.ctor({Parameters(c)})",
                    MethodInfo m when !m.IsSpecialName => $"{(m.IsStatic ? "static " : "")}{name}.{m.Name}{Generics(m)}({Parameters(m)}) -> {Format(m.ReturnParameter)}",
                    PropertyInfo p => $"{name}.{p.Name}" + (p.GetMethod?.IsPublic == true ? " get" : "") + (p.SetMethod?.IsPublic == true ? (IsInit(p) ? " init" : " set") : "") + $" -> {Format(p)}",
                    FieldInfo { IsSpecialName: true } => null,
                    FieldInfo f when type.IsEnum && f.IsStatic => $"{name}.{f.Name} = {f.GetRawConstantValue()}",
                    FieldInfo f => $"{(f.IsStatic ? "static " : "")}{name}.{f.Name} -> {Format(f.FieldType)}",
                    EventInfo e => $"event {name}.{e.Name} -> {Format(e.EventHandlerType!)}",
                    _ => null,
                };
                if (line is not null)
                    yield return line;
            }
        }
    }

    private static string Kind(Type type) => type switch
    {
        { IsEnum: true } => "enum",
        { IsInterface: true } => "interface",
        { IsValueType: true } => "struct",
        { IsAbstract: true, IsSealed: true } => "static class",
        { IsAbstract: true } => "abstract class",
        { IsSealed: true } => "sealed class",
        _ => "class",
    };

    private static bool IsInit(PropertyInfo p) =>
        p.SetMethod!.ReturnParameter.GetRequiredCustomModifiers().Any(m => m.FullName == "System.Runtime.CompilerServices.IsExternalInit");

    private static string Generics(MethodInfo m) =>
        m.IsGenericMethodDefinition ? "<" + string.Join(", ", m.GetGenericArguments().Select(a => a.Name)) + ">" : "";

    private static string Parameters(MethodBase method) =>
        string.Join(", ", method.GetParameters().Select(p => $"{Format(p)} {p.Name}" + (p.HasDefaultValue ? " = " + (p.DefaultValue ?? (p.ParameterType.IsValueType && Nullable.GetUnderlyingType(p.ParameterType) is null ? "default" : "null")) : "")));

    private static string Format(ParameterInfo p) => Format(p.ParameterType, SafeNullability(() => s_nullability.Create(p)));

    private static string Format(PropertyInfo p) => Format(p.PropertyType, SafeNullability(() => s_nullability.Create(p)));

    private static NullabilityInfo? SafeNullability(Func<NullabilityInfo> create)
    {
        try
        {
            return create();
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }

    private static string Format(Type type, NullabilityInfo? nullability = null)
    {
        string text;
        if (type.IsByRef)
            return "ref " + Format(type.GetElementType()!);
        if (Nullable.GetUnderlyingType(type) is { } inner)
            return Format(inner) + "?";
        if (type.IsArray)
            text = Format(type.GetElementType()!, nullability?.ElementType) + "[]";
        else if (type.IsGenericType)
        {
            Type[] args = type.GetGenericArguments();
            string bare = (type.Namespace is null ? "" : type.Namespace + ".") + type.Name[..type.Name.IndexOf('`', StringComparison.Ordinal)];
            text = bare + "<" + string.Join(", ", args.Select((a, i) => Format(a, nullability?.GenericTypeArguments.ElementAtOrDefault(i)))) + ">";
        }
        else
            text = type.IsGenericParameter ? type.Name : type.FullName ?? type.Name;

        return !type.IsValueType && nullability?.ReadState == NullabilityState.Nullable ? text + "?" : text;
    }
}
