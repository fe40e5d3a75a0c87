/**
 * Whether a text is a timestamp Harbor's ATIF model takes: its `Step`
 * validator runs Python's `datetime.fromisoformat` on it after turning a
 * trailing `Z` into `+00:00`. Since Python 3.11 that reads ISO 8601 in its
 * extended and basic forms: a calendar or week date, then optionally any one
 * separator character and a time (hours, minutes, seconds, any number of
 * fraction digits after `.` or `,`) with an optional UTC offset.
 *
 * @example isIsoTimestamp('2025-10-16T14:30:00Z') // true
 * @example isIsoTimestamp('yesterday') // false
 */
export function isIsoTimestamp(text: string): boolean {
  const value = text.endsWith('Z') ? `${text.slice(0, -1)}+00:00` : text;
  const date = DATE.exec(value);
  if (!date || !validDate(date.groups!)) return false;
  const rest = value.slice(date[0].length);
  if (rest === '') return true;
  // Any one character separates the date from the time (`T`, a space, …).
  const time = TIME.exec(rest.slice(1));
  return time !== null && validTime(time.groups!);
}

const DATE =
  /^(?:(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})|(?<byear>\d{4})(?<bmonth>\d{2})(?<bday>\d{2})|(?<wyear>\d{4})-?W(?<week>\d{2})(?:-?(?<weekday>\d))?)(?=$|[^\d])/u;

const TIME =
  /^(?<hour>\d{2})(?:(?<colon>:?)(?<minute>\d{2})(?:\k<colon>(?<second>\d{2})(?:[.,]\d+)?)?)?(?<offset>[+-](?<ohour>\d{2})(?::?(?<ominute>\d{2})(?::?\d{2}(?:\.\d+)?)?)?)?$/u;

function validDate(groups: Record<string, string | undefined>): boolean {
  if (groups.week !== undefined) return inRange(groups.week, 1, 53) && (groups.weekday === undefined || inRange(groups.weekday, 1, 7));
  const year = Number(groups.year ?? groups.byear);
  const month = Number(groups.month ?? groups.bmonth);
  const day = Number(groups.day ?? groups.bday);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function validTime(groups: Record<string, string | undefined>): boolean {
  return (
    inRange(groups.hour, 0, 23) &&
    (groups.minute === undefined || inRange(groups.minute, 0, 59)) &&
    (groups.second === undefined || inRange(groups.second, 0, 59)) &&
    (groups.ohour === undefined || inRange(groups.ohour, 0, 23)) &&
    (groups.ominute === undefined || inRange(groups.ominute, 0, 59))
  );
}

function inRange(text: string | undefined, low: number, high: number): boolean {
  const value = Number(text);
  return text !== undefined && value >= low && value <= high;
}
