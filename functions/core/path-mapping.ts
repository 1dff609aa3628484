/**
 * Path-mapped deployments (`[path_mapping]`): the first `segments` segments of a client's path name one
 * virtual bucket, joined by the separator. With `segments = 2, separator = ":"`, `/{account}/{repo}/{key}`
 * is the key `{key}` of the virtual bucket `account:repo`.
 *
 * S3 clients address path-style `/{bucket}/{key}`, so to them the first segment is the bucket and the
 * other mapped segments begin the key (`s3://account/repo/key`). This module translates between the two
 * spaces; it never touches what was signed: the signature is verified over the raw path and headers as
 * sent (spec rule 6), and only the routed operation is rewritten.
 *
 * Levels a client sees (segments = 2):
 * - `/`: ListBuckets lists each distinct first segment (`account`) once.
 * - `/{account}`: a bucket whose keys are `{repo}/{key}` across every mapped bucket `account:*` (listed
 *   by `listing/mapped.ts`); each repo is a common prefix `{repo}/` with the delimiter `/`.
 * - `/{account}/{repo}/...`: objects of the virtual bucket `account:repo`.
 */
import type { Bucket, PathMapping } from './config/types';
import { S3Error, notImplemented } from './errors';
import { compareKeys, decodePathComponent, encodeKey, validateKey } from './keys';
import type { BucketOperation, Operation } from './routing';

/** A mapped bucket under a client-level bucket, with the key prefix it occupies there (`repo`, no slash). */
export interface MappedChild {
  readonly path: string;
  readonly bucket: Bucket;
}

/** What a client-space operation becomes. */
export type MappedOperation =
  /** ListBuckets: the distinct first segments. */
  | { readonly level: 'root'; readonly names: readonly string[] }
  /** An operation on a client-level bucket (the first segment), served across its mapped buckets. */
  | { readonly level: 'prefix'; readonly operation: BucketOperation; readonly name: string; readonly children: readonly MappedChild[] }
  /** An operation on one mapped virtual bucket, bucket and key (and copy source) rewritten. */
  | { readonly level: 'bucket'; readonly operation: BucketOperation };

export class PathMapper {
  /** Mapped buckets by first segment, each list sorted by `path + "/"` (the order of their keys). */
  private readonly byFirst = new Map<string, MappedChild[]>();

  constructor(
    private readonly mapping: PathMapping,
    buckets: ReadonlyMap<string, Bucket>,
  ) {
    for (const bucket of buckets.values()) {
      const [first, ...rest] = bucket.name.split(mapping.separator);
      const children = this.byFirst.get(first) ?? [];
      children.push({ path: rest.join('/'), bucket });
      this.byFirst.set(first, children);
    }
    for (const children of this.byFirst.values()) children.sort((a, b) => compareKeys(`${a.path}/`, `${b.path}/`));
  }

  /**
   * Maps a routed operation from the client's path space.
   *
   * @throws S3Error NoSuchBucket when the path names no mapped bucket (including an internal name such
   *   as `/account:repo/key`, which is never addressable directly), InvalidRequest for a key that does not
   *   reach below the mapped segments.
   */
  map(op: Exclude<Operation, { readonly name: 'CreateBucket' }>): MappedOperation {
    if (op.name === 'ListBuckets') return { level: 'root', names: [...this.byFirst.keys()].sort(compareKeys) };
    const children = this.childrenOf(op.bucket);
    if (!('key' in op)) return { level: 'prefix', operation: op, name: op.bucket, children };
    validateKey(op.key);
    const { bucket, key } = this.split(op.bucket, op.key.split('/'), () => new S3Error('InvalidRequest', this.shortKeyMessage()));
    const mapped = { ...op, bucket, key };
    if (mapped.name === 'CopyObject' || mapped.name === 'UploadPartCopy') {
      return { level: 'bucket', operation: { ...mapped, copySource: this.mapCopySource(mapped.copySource) } };
    }
    return { level: 'bucket', operation: mapped };
  }

  /**
   * The copy source in the virtual bucket space: `/account/repo/key?versionId=v` becomes
   * `/account%3Arepo/key?versionId=v` (bucket and key encoded with the one key encoder). A source that names
   * no mapped bucket is 404 NoSuchBucket, as the spec requires, including one written with an internal name.
   */
  mapCopySource(raw: string): string {
    const q = raw.indexOf('?');
    const path = (q < 0 ? raw : raw.slice(0, q)).replace(/^\//, '');
    const query = q < 0 ? '' : raw.slice(q);
    const slash = path.indexOf('/');
    const first = decodeSource(slash < 0 ? path : path.slice(0, slash));
    if (first === '' || first.includes(this.mapping.separator) || !this.byFirst.has(first)) throw noSuchBucket(first);
    const rest = slash < 0 ? [] : decodeSource(path.slice(slash + 1)).split('/');
    const { bucket, key } = this.split(first, rest, () => new S3Error('InvalidArgument', `Invalid copy source: expected /${this.template()}/key`));
    return `/${encodeKey(bucket, false)}/${encodeKey(key)}${query}`;
  }

  /** The virtual buckets a client-level bucket name stands for (none for a name that is not one). */
  bucketsNamed(first: string): readonly Bucket[] {
    if (first.includes(this.mapping.separator)) return [];
    return (this.byFirst.get(first) ?? []).map((child) => child.bucket);
  }

  /** The mapped buckets under a client-level bucket; none is NoSuchBucket. */
  private childrenOf(first: string): readonly MappedChild[] {
    const children = first.includes(this.mapping.separator) ? undefined : this.byFirst.get(first);
    if (!children) throw noSuchBucket(first);
    return children;
  }

  /** Peels the mapped segments off a key: the virtual bucket's name and the key inside it. */
  private split(first: string, segments: readonly string[], tooShort: () => S3Error): { bucket: string; key: string } {
    const depth = this.mapping.segments - 1;
    const named = segments.slice(0, depth);
    if (named.some((s) => s.includes(this.mapping.separator))) throw noSuchBucket(first);
    if (segments.length <= depth) {
      // The path stops at or above a mapped bucket: no object can live there.
      if (named.length === depth && !this.byFirst.get(first)?.some((c) => c.path === named.join('/'))) throw noSuchBucket(first);
      throw tooShort();
    }
    const bucket = [first, ...named].join(this.mapping.separator);
    if (!this.byFirst.get(first)?.some((c) => c.bucket.name === bucket)) throw noSuchBucket(first);
    return { bucket, key: segments.slice(depth).join('/') };
  }

  private template(): string {
    return Array.from({ length: this.mapping.segments }, (_, i) => `segment${i + 1}`).join('/');
  }

  private shortKeyMessage(): string {
    return `In this deployment objects live under /${this.template()}/: the key must continue below the mapped segments`;
  }
}

/** How a client addresses a virtual bucket: a bucket name, and the key prefix its keys appear under. */
export interface ClientAddress {
  readonly bucket: string;
  /** '' without path mapping; with it, the mapped segments below the first, each followed by `/`. */
  readonly keyPrefix: string;
}

/**
 * The client's address of the virtual bucket `name`: itself, or under `[path_mapping]` the client-level
 * bucket and key prefix (`acme:widgets` is `acme` with keys under `widgets/`). Answers that name a bucket
 * and key use it, since an internal name such as `acme:widgets` is never addressable.
 */
export function clientAddress(mapping: PathMapping | undefined, name: string): ClientAddress {
  if (mapping === undefined) return { bucket: name, keyPrefix: '' };
  const [first, ...rest] = name.split(mapping.separator);
  return { bucket: first, keyPrefix: rest.map((segment) => `${segment}/`).join('') };
}

/**
 * A client's listing marker (a key in the client's space) as a marker inside the mapped bucket whose keys
 * appear under `keyPrefix`: the rest of it when it lies under `keyPrefix`, none when it sorts before every
 * key there, and `pastEnd` when it sorts after all of them (the listing is then empty).
 */
export function markerInside(marker: string | undefined, keyPrefix: string): { readonly marker?: string; readonly pastEnd: boolean } {
  if (marker === undefined || keyPrefix === '') return { marker, pastEnd: false };
  if (marker.startsWith(keyPrefix)) return { marker: marker.slice(keyPrefix.length) || undefined, pastEnd: false };
  return { pastEnd: compareKeys(marker, keyPrefix) > 0 };
}

/** Operations on a client-level bucket that need a single virtual bucket (and say so). */
export function prefixLevelUnsupported(op: BucketOperation): S3Error {
  return notImplemented(`${op.name} on /${op.bucket}, above the mapped buckets (address one mapped bucket's path)`);
}

function noSuchBucket(name: string): S3Error {
  return new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: name });
}

function decodeSource(text: string): string {
  try {
    return decodePathComponent(text);
  } catch {
    throw new S3Error('InvalidArgument', 'Invalid copy source: not valid percent-encoded UTF-8');
  }
}
