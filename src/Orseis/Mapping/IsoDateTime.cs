namespace Orseis.Mapping;

/// <summary>
/// A fast path for the one text form most date columns hold (how Microsoft.Data.Sqlite and most tools write a
/// <see cref="DateTime"/>): <c>yyyy-MM-dd HH:mm[:ss[.fffffff]]</c>, with a space or a <c>T</c> between date and time,
/// no zone. Anything else, and any value out of range, is left to the general parser, so the result is always what
/// <c>DateTime.TryParse(s, InvariantCulture, RoundtripKind)</c> gives (<see cref="DateTimeKind.Unspecified"/>).
/// </summary>
internal static class IsoDateTime
{
    public static bool TryParse(string s, out DateTime value)
    {
        value = default;
        int length = s.Length;
        if (length != 16 && length != 19 && (length < 21 || length > 27))
            return false;
        if (s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':')
            return false;
        if (!Digits(s, 0, 4, out int year) || !Digits(s, 5, 2, out int month) || !Digits(s, 8, 2, out int day)
            || !Digits(s, 11, 2, out int hour) || !Digits(s, 14, 2, out int minute))
        {
            return false;
        }

        int second = 0;
        long fraction = 0;
        if (length > 16)
        {
            if (s[16] != ':' || !Digits(s, 17, 2, out second))
                return false;
            if (length > 19)
            {
                int places = length - 20;
                if (s[19] != '.' || !Digits(s, 20, places, out int digits))
                    return false;
                fraction = digits;
                for (int i = places; i < 7; i++)
                    fraction *= 10;
            }
        }

        if (year < 1 || month < 1 || month > 12 || day < 1 || day > DateTime.DaysInMonth(year, month) ||
            hour > 23 || minute > 59 || second > 59)
        {
            return false;
        }

        value = new DateTime(year, month, day, hour, minute, second, DateTimeKind.Unspecified).AddTicks(fraction);
        return true;
    }

    private static bool Digits(string s, int start, int count, out int value)
    {
        value = 0;
        for (int i = start; i < start + count; i++)
        {
            int digit = s[i] - '0';
            if ((uint)digit > 9)
                return false;
            value = value * 10 + digit;
        }

        return true;
    }
}
