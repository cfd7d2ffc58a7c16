using System.Dynamic;
using System.Linq.Expressions;
using System.Reflection;

namespace Orseis;

// Member access on a row typed dynamic: row.name reads the column, row.name = x sets (or adds) it. Everything else (an
// index, a method such as ToString) binds to the row's public members as on any object.
public sealed partial class DynamicRow : IDynamicMetaObjectProvider
{
    DynamicMetaObject IDynamicMetaObjectProvider.GetMetaObject(Expression parameter) => new RowMeta(parameter, this);

    private sealed class RowMeta(Expression expression, DynamicRow row) : DynamicMetaObject(expression, BindingRestrictions.Empty, row)
    {
        private static readonly MethodInfo GetMethod =
            typeof(DynamicRow).GetMethod(nameof(GetByName), BindingFlags.Instance | BindingFlags.NonPublic)!;

        private static readonly MethodInfo SetMethod =
            typeof(DynamicRow).GetMethod(nameof(Set), BindingFlags.Instance | BindingFlags.NonPublic)!;

        public override DynamicMetaObject BindGetMember(GetMemberBinder binder) =>
            Call(GetMethod, Expression.Constant(binder.Name));

        public override DynamicMetaObject BindSetMember(SetMemberBinder binder, DynamicMetaObject value) =>
            Call(
                SetMethod,
                Expression.Constant(binder.Name),
                Expression.Convert(value.Expression, typeof(object)),
                Expression.Constant(false));

        public override IEnumerable<string> GetDynamicMemberNames() => ((DynamicRow)Value!).Keys;

        private DynamicMetaObject Call(MethodInfo method, params Expression[] arguments) =>
            new(Expression.Call(Expression.Convert(Expression, typeof(DynamicRow)), method, arguments),
                BindingRestrictions.GetTypeRestriction(Expression, typeof(DynamicRow)));
    }
}
