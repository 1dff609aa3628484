import { grantedRanges, isAllowed, isAllowedSomewhere, prefixCovers, rangesUnder } from '../../../functions/core/auth/scopes';
import type { Action, Scope } from '../../../functions/core/config/types';

const scope = (bucket: string, prefixes: string[], ...actions: Action[]): Scope => ({ bucket, prefixes, actions });

describe('prefixCovers', () => {
  it('an empty prefix covers every key', () => {
    expect(prefixCovers('', 'anything/at/all')).toBe(true);
    expect(prefixCovers('', '')).toBe(true);
  });

  it('a prefix ending in a slash covers the keys that start with it', () => {
    expect(prefixCovers('data/', 'data/x')).toBe(true);
    expect(prefixCovers('data/', 'data/a/b/c')).toBe(true);
    expect(prefixCovers('data/', 'data/')).toBe(true);
  });

  it('a prefix ending in a slash does not cover the folder name without its slash', () => {
    expect(prefixCovers('data/', 'data')).toBe(false);
  });

  it('a prefix without a trailing slash covers the key equal to it and the keys under it', () => {
    expect(prefixCovers('data', 'data')).toBe(true);
    expect(prefixCovers('data', 'data/x')).toBe(true);
    expect(prefixCovers('data', 'data/')).toBe(true);
  });

  it('a prefix without a trailing slash never grants a sibling that merely starts with it', () => {
    expect(prefixCovers('data', 'database/x')).toBe(false);
    expect(prefixCovers('data', 'database')).toBe(false);
    expect(prefixCovers('data', 'data.txt')).toBe(false);
    expect(prefixCovers('a/b', 'a/bc')).toBe(false);
  });

  it('is case-sensitive and does not normalize', () => {
    expect(prefixCovers('Data/', 'data/x')).toBe(false);
    expect(prefixCovers('data/', './data/x')).toBe(false);
  });
});

describe('isAllowed', () => {
  it('grants an action listed in a scope for its bucket', () => {
    expect(isAllowed([scope('b', [], 'get_object')], 'b', 'get_object', 'k')).toBe(true);
  });

  it('never grants an action the scope does not list', () => {
    expect(isAllowed([scope('b', [], 'get_object')], 'b', 'put_object', 'k')).toBe(false);
  });

  it('never grants in another bucket', () => {
    expect(isAllowed([scope('b', [], 'get_object')], 'other', 'get_object', 'k')).toBe(false);
  });

  it('matches bucket names exactly', () => {
    expect(isAllowed([scope('b', [], 'get_object')], 'bb', 'get_object', 'k')).toBe(false);
    expect(isAllowed([scope('B', [], 'get_object')], 'b', 'get_object', 'k')).toBe(false);
  });

  it('lets bucket "*" match every bucket', () => {
    const scopes = [scope('*', [], 'list_bucket')];
    expect(isAllowed(scopes, 'one', 'list_bucket', '')).toBe(true);
    expect(isAllowed(scopes, 'two', 'list_bucket', 'x/')).toBe(true);
  });

  it('lets an empty prefixes list cover the whole bucket', () => {
    const scopes = [scope('b', [], 'delete_object')];
    expect(isAllowed(scopes, 'b', 'delete_object', 'any/key/at/all')).toBe(true);
  });

  it('limits a scope with prefixes to keys those prefixes cover', () => {
    const scopes = [scope('b', ['data', 'logs/'], 'get_object')];
    expect(isAllowed(scopes, 'b', 'get_object', 'data/x')).toBe(true);
    expect(isAllowed(scopes, 'b', 'get_object', 'data')).toBe(true);
    expect(isAllowed(scopes, 'b', 'get_object', 'logs/2024/01.log')).toBe(true);
    expect(isAllowed(scopes, 'b', 'get_object', 'database/x')).toBe(false);
    expect(isAllowed(scopes, 'b', 'get_object', 'logs')).toBe(false);
    expect(isAllowed(scopes, 'b', 'get_object', 'other')).toBe(false);
  });

  it('lets a prefix of "" in the list cover the whole bucket', () => {
    expect(isAllowed([scope('b', ['x/', ''], 'get_object')], 'b', 'get_object', 'y')).toBe(true);
  });

  it('authorizes a listing on its prefix parameter with the same rule', () => {
    const scopes = [scope('b', ['data/'], 'list_bucket')];
    expect(isAllowed(scopes, 'b', 'list_bucket', 'data/')).toBe(true);
    expect(isAllowed(scopes, 'b', 'list_bucket', 'data/2024/')).toBe(true);
    expect(isAllowed(scopes, 'b', 'list_bucket', '')).toBe(false);
    expect(isAllowed(scopes, 'b', 'list_bucket', 'dat')).toBe(false);
  });

  it('never grants anything through a scope whose bucket is empty (a template that resolved to nothing)', () => {
    const scopes = [scope('', [], 'get_object', 'list_bucket')];
    expect(isAllowed(scopes, '', 'get_object', 'k')).toBe(false);
    expect(isAllowed(scopes, 'b', 'get_object', 'k')).toBe(false);
    expect(isAllowed(scopes, '', 'list_bucket', '')).toBe(false);
  });

  it('grants get_object_version only when it is listed: get_object alone does not imply it', () => {
    expect(isAllowed([scope('b', [], 'get_object')], 'b', 'get_object_version', 'k')).toBe(false);
    expect(isAllowed([scope('b', [], 'get_object_version')], 'b', 'get_object_version', 'k')).toBe(true);
  });

  it('does not let get_object_version imply get_object', () => {
    expect(isAllowed([scope('b', [], 'get_object_version')], 'b', 'get_object', 'k')).toBe(false);
  });

  it('grants when any one scope grants, without combining scopes', () => {
    const scopes = [scope('b', ['a/'], 'get_object'), scope('b', ['c/'], 'put_object')];
    expect(isAllowed(scopes, 'b', 'get_object', 'a/1')).toBe(true);
    expect(isAllowed(scopes, 'b', 'put_object', 'c/1')).toBe(true);
    expect(isAllowed(scopes, 'b', 'put_object', 'a/1')).toBe(false);
    expect(isAllowed(scopes, 'b', 'get_object', 'c/1')).toBe(false);
  });

  it('grants nothing without scopes', () => {
    expect(isAllowed([], 'b', 'get_object', 'k')).toBe(false);
  });
});

describe('isAllowedSomewhere (the first stage of DeleteObjects)', () => {
  it('is true when a scope grants the action anywhere in the bucket, whatever its prefixes', () => {
    expect(isAllowedSomewhere([scope('b', ['only/this/'], 'delete_object')], 'b', 'delete_object')).toBe(true);
  });

  it('is true through bucket "*"', () => {
    expect(isAllowedSomewhere([scope('*', ['x/'], 'delete_object')], 'any', 'delete_object')).toBe(true);
  });

  it('is false when no scope lists the action', () => {
    expect(isAllowedSomewhere([scope('b', [], 'get_object', 'put_object')], 'b', 'delete_object')).toBe(false);
  });

  it('is false for another bucket', () => {
    expect(isAllowedSomewhere([scope('b', [], 'delete_object')], 'c', 'delete_object')).toBe(false);
  });

  it('is false through a scope whose bucket is empty', () => {
    expect(isAllowedSomewhere([scope('', [], 'delete_object')], '', 'delete_object')).toBe(false);
    expect(isAllowedSomewhere([scope('', [], 'delete_object')], 'b', 'delete_object')).toBe(false);
  });

  it('is false without scopes', () => {
    expect(isAllowedSomewhere([], 'b', 'delete_object')).toBe(false);
  });
});

describe('grantedRanges and rangesUnder: what a listing may read', () => {
  const LIST: Action[] = ['list_bucket'];

  it('turns a prefix without a slash into the key itself and the run under it, never its siblings', () => {
    expect(grantedRanges([scope('b', ['data'], ...LIST)], 'b', 'list_bucket')).toEqual([
      { prefix: 'data', exact: true },
      { prefix: 'data/', exact: false },
    ]);
  });

  it('counts only scopes for this bucket (or "*") that grant the action', () => {
    const scopes = [scope('b', ['data'], ...LIST), scope('other', ['database/'], ...LIST), scope('b', ['database/'], 'get_object'), scope('*', ['shared/'], ...LIST)];
    expect(grantedRanges(scopes, 'b', 'list_bucket').map((r) => r.prefix)).toEqual(['data', 'data/', 'shared/']);
  });

  it('an empty prefix list is the whole bucket; nested and repeated grants fold into the widest', () => {
    expect(grantedRanges([scope('b', ['x/'], ...LIST), scope('b', [], ...LIST)], 'b', 'list_bucket')).toEqual([{ prefix: '', exact: false }]);
    expect(grantedRanges([scope('b', ['a/b/', 'a/', 'a/'], ...LIST)], 'b', 'list_bucket')).toEqual([{ prefix: 'a/', exact: false }]);
    expect(grantedRanges([scope('', ['a/'], ...LIST)], 'b', 'list_bucket')).toEqual([]);
  });

  it('keeps the ranges in key order ("a-b/" sorts before "a/")', () => {
    expect(grantedRanges([scope('b', ['a/', 'a-b/', 'a'], ...LIST)], 'b', 'list_bucket').map((r) => r.prefix)).toEqual(['a', 'a-b/', 'a/']);
  });

  it('cuts the ranges down to a listing prefix: the prefix itself when inside one, else those under it', () => {
    const ranges = grantedRanges([scope('b', ['data', 'reports/'], ...LIST)], 'b', 'list_bucket');
    expect(rangesUnder(ranges, 'reports/2024/')).toEqual([{ prefix: 'reports/2024/', exact: false }]);
    expect(rangesUnder(ranges, 'data')).toEqual([{ prefix: 'data', exact: true }, { prefix: 'data/', exact: false }]);
    expect(rangesUnder(ranges, 'dat')).toEqual([{ prefix: 'data', exact: true }, { prefix: 'data/', exact: false }]);
    expect(rangesUnder(ranges, 'datab')).toEqual([]);
  });
});
