import type { ObjectStore } from '../../../functions/core/backends/store';
import { s3StoreOf } from '../../../functions/core/operations/backend-response';
import { parseCompleteRequest } from '../../../functions/core/operations/complete-multipart-upload';
import type { BucketContext } from '../../../functions/core/context';
import { parseDeleteRequest } from '../../../functions/core/operations/delete-objects';
import { s3CodeOf } from '../../support/thrown';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const objects = (n: number): string => Array.from({ length: n }, (_, i) => `<Object><Key>k${i}</Key></Object>`).join('');

describe('parseDeleteRequest', () => {
  it('reads the keys exactly, entities decoded, whitespace kept, the versions named, and Quiet', () => {
    const body = `<?xml version="1.0"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>
      <Object><Key> a &amp; b </Key><VersionId>v1</VersionId></Object><Object><Key>ü/&lt;x&gt;</Key></Object></Delete>`;
    expect(parseDeleteRequest(utf8(body))).toEqual({ quiet: true, entries: [{ key: ' a & b ', versionId: 'v1' }, { key: 'ü/<x>' }] });
  });

  it('reads the ETag an entry must have (a conditional delete)', () => {
    expect(parseDeleteRequest(utf8('<Delete><Object><Key>a</Key><ETag>"e1"</ETag></Object></Delete>')).entries).toEqual([{ key: 'a', etag: '"e1"' }]);
  });

  it('an empty VersionId names no version, as on DeleteObject', () => {
    expect(parseDeleteRequest(utf8('<Delete><Object><Key>a</Key><VersionId></VersionId></Object></Delete>')).entries).toEqual([{ key: 'a' }]);
  });

  it('keys the gateway refuses in paths are allowed here (spec: body keys are exempt)', () => {
    expect(parseDeleteRequest(utf8('<Delete><Object><Key>a/../b/</Key></Object></Delete>')).entries).toEqual([{ key: 'a/../b/' }]);
  });

  it('accepts 1000 objects and refuses 1001', () => {
    expect(parseDeleteRequest(utf8(`<Delete>${objects(1000)}</Delete>`)).entries).toHaveLength(1000);
    expect(s3CodeOf(() => parseDeleteRequest(utf8(`<Delete>${objects(1001)}</Delete>`)))).toBe('MalformedXML');
  });

  it.each([
    ['no objects', '<Delete></Delete>'],
    ['an empty key', '<Delete><Object><Key></Key></Object></Delete>'],
    ['a Quiet that is not a boolean', '<Delete><Quiet>maybe</Quiet><Object><Key>a</Key></Object></Delete>'],
    ['a DOCTYPE', '<!DOCTYPE Delete><Delete><Object><Key>a</Key></Object></Delete>'],
    ['an entity definition', '<!DOCTYPE d [<!ENTITY e "x">]><Delete><Object><Key>&e;</Key></Object></Delete>'],
    ['unclosed elements', '<Delete><Object><Key>a</Key></Object>'],
    ['another root', '<Remove><Object><Key>a</Key></Object></Remove>'],
  ])('%s is MalformedXML', (_, body) => {
    expect(s3CodeOf(() => parseDeleteRequest(utf8(body)))).toBe('MalformedXML');
  });

  it('invalid UTF-8 is MalformedXML', () => {
    expect(s3CodeOf(() => parseDeleteRequest(new Uint8Array([0x3c, 0xff, 0x3e])))).toBe('MalformedXML');
  });
});

describe('parseCompleteRequest', () => {
  it('reads part numbers and ETags, dropping part checksums', () => {
    const body = '<CompleteMultipartUpload><Part><ETag>"a"</ETag><PartNumber>1</PartNumber><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part><Part><PartNumber>2</PartNumber><ETag>&quot;b&quot;</ETag></Part></CompleteMultipartUpload>';
    expect(parseCompleteRequest(utf8(body))).toEqual([{ partNumber: 1, etag: '"a"' }, { partNumber: 2, etag: '"b"' }]);
  });

  it.each([
    ['no parts', '<CompleteMultipartUpload></CompleteMultipartUpload>'],
    ['part number 0', '<CompleteMultipartUpload><Part><PartNumber>0</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>'],
    ['part number 10001', '<CompleteMultipartUpload><Part><PartNumber>10001</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>'],
    ['a part without ETag', '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>'],
    ['a DOCTYPE', '<!DOCTYPE x><CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>'],
  ])('%s is MalformedXML', (_, body) => {
    expect(s3CodeOf(() => parseCompleteRequest(utf8(body)))).toBe('MalformedXML');
  });
});

describe('s3StoreOf: multipart and batch delete need an S3 backend (spec rule 8)', () => {
  it('is 501 NotImplemented for any other store', () => {
    const store: ObjectStore = {
      forwardObject: () => Promise.reject(new Error('unused')),
      deleteObjects: () => Promise.reject(new Error('unused')),
      list: () => Promise.reject(new Error('unused')),
    };
    const ctx = { store, bucket: { name: 'blobs', anonymousAccess: false, backend: { type: 'azure' } } } as unknown as BucketContext;
    expect(s3CodeOf(() => s3StoreOf(ctx, 'CreateMultipartUpload'))).toBe('NotImplemented');
  });
});
