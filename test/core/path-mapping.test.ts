import { parseConfig } from '../../functions/core/config/parse';
import type { Config } from '../../functions/core/config/types';
import { S3Error } from '../../functions/core/errors';
import { PathMapper } from '../../functions/core/path-mapping';
import { problemsOf } from '../support/config-problems';

const mappedBucket = (name: string): string => `[[buckets]]\nname = "${name}"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9000"\nbucket_name = "b"\n`;

function configWith(names: readonly string[], mapping = 'segments = 2\nseparator = ":"'): Config {
  return parseConfig(`[path_mapping]\n${mapping}\n${names.map(mappedBucket).join('\n')}`);
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof S3Error) return err.code;
    throw err;
  }
  return undefined;
}

describe('[path_mapping] configuration', () => {
  it('GIVEN segments and a separator THEN the mapping is read, and every bucket name must have that many parts', () => {
    const config = configWith(['acme:widgets', 'acme:gadgets']);
    expect(config.pathMapping).toEqual({ segments: 2, separator: ':' });
  });

  it('GIVEN no separator THEN it defaults to ":"', () => {
    expect(configWith(['a:b'], 'segments = 2').pathMapping).toEqual({ segments: 2, separator: ':' });
  });

  it('GIVEN no [path_mapping] THEN the configuration has none', () => {
    expect(parseConfig(mappedBucket('plain')).pathMapping).toBeUndefined();
  });

  it('refuses bad settings, naming the table and the field', () => {
    expect(problemsOf('[path_mapping]\nseparator = ":"')).toEqual(['[path_mapping]: segments is required']);
    expect(problemsOf('[path_mapping]\nsegments = 1')).toEqual(['[path_mapping]: segments must be an integer from 2 to 8 (the path segments that name one virtual bucket)']);
    expect(problemsOf('[path_mapping]\nsegments = 2\nseparator = "/"')).toEqual(['[path_mapping]: separator must be a non-empty string without "/", spaces or control characters']);
    expect(problemsOf('[path_mapping]\nsegments = 2\nsegmnts = 3')[0]).toMatch(/^\[path_mapping\]: segmnts is not a known field/);
    expect(problemsOf('path_mapping = 2')).toEqual(['[path_mapping]: must be a table']);
  });

  it('refuses a bucket whose name does not split into the mapped segments, naming the bucket', () => {
    const problems = problemsOf(`[path_mapping]\nsegments = 2\n${mappedBucket('plain')}\n${mappedBucket('a:b:c')}\n${mappedBucket('a:..')}`);
    expect(problems).toEqual([
      '[[buckets]] #1 "plain": name must be 2 non-empty parts joined by ":" (like "part1:part2"), because [path_mapping] segments = 2',
      '[[buckets]] #2 "a:b:c": name must be 2 non-empty parts joined by ":" (like "part1:part2"), because [path_mapping] segments = 2',
      '[[buckets]] #3 "a:..": name must be 2 non-empty parts joined by ":" (like "part1:part2"), because [path_mapping] segments = 2',
    ]);
  });
});

describe('PathMapper', () => {
  const config = configWith(['acme:widgets', 'acme:gadgets', 'other:x']);
  const mapper = new PathMapper(config.pathMapping!, config.buckets);
  const get = (bucket: string, key: string): Parameters<PathMapper['map']>[0] => ({ name: 'GetObject', bucket, key });

  it('WHEN a path names a mapped bucket and a key THEN the operation addresses the virtual bucket and the rest of the key', () => {
    expect(mapper.map(get('acme', 'widgets/dir/a b.txt'))).toEqual({ level: 'bucket', operation: { name: 'GetObject', bucket: 'acme:widgets', key: 'dir/a b.txt' } });
  });

  it('WHEN ListBuckets THEN the distinct first segments are the buckets', () => {
    expect(mapper.map({ name: 'ListBuckets' })).toEqual({ level: 'root', names: ['acme', 'other'] });
  });

  it('WHEN a first segment is addressed as a bucket THEN its mapped buckets are listed in key order', () => {
    const mapped = mapper.map({ name: 'ListObjects', bucket: 'acme', version: 2 });
    expect(mapped.level).toBe('prefix');
    if (mapped.level === 'prefix') expect(mapped.children.map((c) => c.path)).toEqual(['gadgets', 'widgets']);
  });

  it('WHEN a path names no mapped bucket THEN NoSuchBucket, also for an internal name sent as a path', () => {
    expect(codeOf(() => mapper.map(get('nobody', 'widgets/k')))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map(get('acme', 'nothing/k')))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map(get('acme:widgets', 'k')))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map({ name: 'ListObjects', bucket: 'acme:widgets', version: 2 }))).toBe('NoSuchBucket');
  });

  it('WHEN a key stops at the mapped bucket THEN InvalidRequest; an invalid key is InvalidRequest before mapping', () => {
    expect(codeOf(() => mapper.map(get('acme', 'widgets')))).toBe('InvalidRequest');
    expect(codeOf(() => mapper.map({ name: 'PutObject', bucket: 'acme', key: 'file.txt' }))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map(get('acme', 'widgets/../x')))).toBe('InvalidRequest');
  });

  it('WHEN CopyObject THEN destination and copy source are both mapped, the source re-encoded with the one key encoder', () => {
    const mapped = mapper.map({ name: 'CopyObject', bucket: 'acme', key: 'widgets/copy.txt', copySource: '/acme/gadgets/a%20b%2Bc.txt?versionId=v1' });
    expect(mapped).toEqual({
      level: 'bucket',
      operation: { name: 'CopyObject', bucket: 'acme:widgets', key: 'copy.txt', copySource: '/acme%3Agadgets/a%20b%2Bc.txt?versionId=v1' },
    });
    expect(mapper.mapCopySource('other/x/k')).toBe('/other%3Ax/k');
  });

  it('WHEN the copy source names no mapped bucket THEN NoSuchBucket (spec rule 6), also written with its internal name', () => {
    expect(codeOf(() => mapper.mapCopySource('/acme:gadgets/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/acme%3Agadgets/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/acme/unknown/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/nobody/gadgets/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/acme/gadgets'))).toBe('InvalidArgument');
  });

  it('maps three segments the same way', () => {
    const deep = configWith(['a.b.c'], 'segments = 3\nseparator = "."');
    const m = new PathMapper(deep.pathMapping!, deep.buckets);
    expect(m.map(get('a', 'b/c/k'))).toEqual({ level: 'bucket', operation: { name: 'GetObject', bucket: 'a.b.c', key: 'k' } });
    expect(codeOf(() => m.map(get('a', 'b/c')))).toBe('InvalidRequest');
  });
});
