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
 *   by `operations/list-mapped.ts`); each repo is a common prefix `{repo}/` with the delimiter `/`.
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
  map(op: Operation): MappedOperation {
    if (op.name === 'ListBuckets') return { level: 'root', names: [...this.byFirst.keys()].sort(compareKeys) };
    const children = this.childrenOf(op.bucket);
    if (!('key' in op)) return { level: 'prefix', operation: op, name: op.bucket, children };
    validateKey(op.key);
    const { bucket, key } = this.split(op.bucket, op.key.split('/'), () => new S3Error('InvalidRequest', this.shortKeyMessage()));
    const mapped = { ...op, bucket, key };
    if (mapped.name === 'CopyObject') return { level: 'bucket', operation: { ...mapped, copySource: this.mapCopySource(mapped.copySource) } };
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
