/**
 * A read's `Range` header as S3 reads it: one range of bytes (RFC 9110 §14.1), or none at all. S3 serves a
 * single range and ignores any other header (malformed, a range that ends before it starts, several ranges),
 * answering the whole object with 200; a range starting at or past the object's end is 416 InvalidRange.
 * Every backend is sent the range in one form, or none, so an S3-compatible store, Azure and GCS answer alike
 * (each reads the headers S3 ignores in its own way: Azure refuses them, RGW answers some with 416).
 */
import { S3Error } from './errors';
import type { ReadonlyHeaders } from './http';

export type ByteRange = { readonly first: number; readonly last?: number } | { readonly suffix: number };

const RANGE_SPEC = /^(?:(\d+)-(\d*)|-(\d+))$/;

/** The one range `header` asks for, or undefined when S3 would ignore it. */
export function parseRange(header: string | undefined): ByteRange | undefined {
  if (header === undefined) return undefined;
  const eq = header.indexOf('=');
  // The unit is case-insensitive; a list's empty elements are no elements (RFC 9110 §5.6.1).
  if (eq < 0 || header.slice(0, eq).trim().toLowerCase() !== 'bytes') return undefined;
  const specs = header
    .slice(eq + 1)
    .split(',')
    .map((spec) => spec.trim())
    .filter((spec) => spec !== '');
  if (specs.length !== 1) return undefined;
  const m = RANGE_SPEC.exec(specs[0]);
  if (m === null) return undefined;
  if (m[3] !== undefined) return { suffix: Number(m[3]) };
  const first = Number(m[1]);
  if (m[2] === '') return { first };
  const last = Number(m[2]);
  return last < first ? undefined : { first, last };
}

/** The range as a backend reads it: `bytes=first-last`, `bytes=first-` or `bytes=-suffix`. */
export function rangeHeader(range: ByteRange): string {
  return 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.first}-${range.last ?? ''}`;
}

/** The first and last byte `range` selects of an object of `size` bytes, or undefined when it selects none. */
export function resolveRange(range: ByteRange, size: number): { readonly first: number; readonly last: number } | undefined {
  if ('suffix' in range) return range.suffix === 0 || size === 0 ? undefined : { first: Math.max(0, size - range.suffix), last: size - 1 };
  return range.first >= size ? undefined : { first: range.first, last: Math.min(range.last ?? size - 1, size - 1) };
}

/** S3's 416 for `range` on an object of `size` bytes. */
export function invalidRange(range: ByteRange, size: number): S3Error {
  return new S3Error('InvalidRange', 'The requested range is not satisfiable', { RangeRequested: rangeHeader(range), ActualObjectSize: String(size) });
}

/**
 * S3's 416 when a store answered a range that selects nothing with the whole object (200) or with an empty
 * part (206 `bytes 1000-999/1000`), as the storage emulators do; undefined for any other answer.
 */
export function unsatisfiedRange(range: ByteRange | undefined, status: number, headers: ReadonlyHeaders): S3Error | undefined {
  if (range === undefined) return undefined;
  const total = status === 200 ? headers.get('content-length') : status === 206 ? /\/(\d+)$/.exec(headers.get('content-range') ?? '')?.[1] : undefined;
  if (total === undefined || total === null) return undefined;
  const size = Number(total);
  return resolveRange(range, size) === undefined ? invalidRange(range, size) : undefined;
}

const COPY_RANGE = /^bytes=(\d+)-(\d+)$/;

/**
 * UploadPartCopy's `x-amz-copy-source-range` on a source of `size` bytes, as S3 takes it: exactly
 * `bytes=first-last` (no open, suffix or multiple ranges), within the source. Absent: the whole source.
 *
 * @throws S3Error InvalidArgument for another form; InvalidRange (416) for a range that ends before it
 * starts or past the source's end (a GET would shorten it; a copy does not).
 */
export function copySourceRange(header: string | undefined, size: number): { readonly first: number; readonly last: number } {
  if (header === undefined) return { first: 0, last: size - 1 };
  const m = COPY_RANGE.exec(header);
  if (m === null) {
    throw new S3Error(
      'InvalidArgument',
      'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
      { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header },
    );
  }
  const first = Number(m[1]);
  const last = Number(m[2]);
  if (last < first || last >= size) throw invalidRange({ first, last }, size);
  return { first, last };
}
