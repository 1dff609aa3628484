/** The two date forms SigV4 meets: ISO 8601 basic (`20130524T000000Z`) and the HTTP `Date` header. */

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
/** IMF-fixdate, the only `Date` form HTTP/1.1 senders may generate (RFC 9110 section 5.6.7). */
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `YYYYMMDDTHHMMSSZ` for a time in milliseconds.
 *
 * @example formatAmzDate(Date.UTC(2013, 4, 24)) // '20130524T000000Z'
 */
export function formatAmzDate(ms: number): string {
  // Every backend request is signed with the current second: formatted once per second, not per request.
  const second = Math.floor(ms / 1000);
  if (second === lastSecond) return lastText;
  const iso = new Date(second * 1000).toISOString();
  // 2013-05-24T00:00:00.000Z -> 20130524T000000Z
  const date = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
  lastText = `${date}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  lastSecond = second;
  return lastText;
}

let lastSecond = NaN;
let lastText = '';

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Milliseconds of a UTC date (month 0-11), or undefined when a field is out of range: Date.UTC would roll over. */
function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | undefined {
  const valid =
    month >= 0 && month < 12 && day >= 1 && day <= DAYS_IN_MONTH[month]! && hour < 24 && minute < 60 && second < 60;
  if (!valid) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, second);
  // February 29 of a common year is the one case the table lets through.
  return month === 1 && day === 29 && new Date(ms).getUTCMonth() !== 1 ? undefined : ms;
}

/**
 * Milliseconds of a `YYYYMMDDTHHMMSSZ` date, or undefined when it is not one (including `20130230T…`).
 *
 * @example parseAmzDate('20130524T000000Z') // 1369353600000
 */
export function parseAmzDate(amzDate: string): number | undefined {
  const m = AMZ_DATE.exec(amzDate);
  if (m === null) return undefined;
  return utc(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/**
 * The `YYYYMMDDTHHMMSSZ` form of an HTTP `Date` header value, or undefined when it is not IMF-fixdate.
 *
 * @example httpDateToAmzDate('Fri, 24 May 2013 00:00:00 GMT') // '20130524T000000Z'
 */
export function httpDateToAmzDate(httpDate: string): string | undefined {
  const m = HTTP_DATE.exec(httpDate);
  if (m === null) return undefined;
  const month = MONTHS.indexOf(m[2]!);
  if (month < 0) return undefined;
  const ms = utc(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  return ms === undefined ? undefined : formatAmzDate(ms);
}
