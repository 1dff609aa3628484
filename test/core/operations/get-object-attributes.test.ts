import { attributes, requestedAttributes } from '../../../functions/core/operations/get-object-attributes';

/**
 * GetObjectAttributes reads the attributes a client names and answers them from the store's HEAD. Its
 * answers through every runtime and store: test/e2e/read.test.ts and the store contract.
 */

describe('requestedAttributes: x-amz-object-attributes', () => {
  it('reads the comma-separated names, with spaces around them', () => {
    expect([...requestedAttributes('ETag, ObjectSize,StorageClass')]).toEqual(['ETag', 'ObjectSize', 'StorageClass']);
  });

  it.each([null, '', ' , '])('refuses a missing or empty header (%p) with InvalidArgument', (header) => {
    expect(() => requestedAttributes(header)).toThrow(expect.objectContaining({ code: 'InvalidArgument', message: expect.stringContaining('either missing or empty') }));
  });

  it.each(['Colour', 'etag', 'ETag,,ObjectSize'])('refuses a name S3 does not know (%p) with InvalidArgument', (header) => {
    expect(() => requestedAttributes(header)).toThrow(expect.objectContaining({ code: 'InvalidArgument', status: 400, message: 'Invalid attribute name specified.' }));
  });
});

describe('attributes: the answer from a HEAD\'s headers', () => {
  const all = requestedAttributes('ETag,Checksum,ObjectParts,StorageClass,ObjectSize');

  it('writes the ETag without quotes and STANDARD where HEAD names no storage class; Checksum has nothing to show', () => {
    expect(attributes({ etag: '"9dd4e461268c8034f5c8564e155c67a6"', 'content-length': '42' }, all)).toEqual({
      ETag: '9dd4e461268c8034f5c8564e155c67a6',
      ObjectParts: undefined,
      StorageClass: 'STANDARD',
      ObjectSize: 42,
    });
  });

  it('counts the parts of an object uploaded in parts, from its ETag', () => {
    const out = attributes({ etag: '"0123456789abcdef0123456789abcdef-12"', 'content-length': '5', 'x-amz-storage-class': 'STANDARD_IA' }, all);
    expect(out).toMatchObject({ ETag: '0123456789abcdef0123456789abcdef-12', ObjectParts: { PartsCount: 12 }, StorageClass: 'STANDARD_IA' });
  });

  it('shows only the attributes asked for', () => {
    expect(attributes({ etag: '"e-3"', 'content-length': '5' }, requestedAttributes('ObjectSize'))).toEqual({ ETag: undefined, ObjectParts: undefined, StorageClass: undefined, ObjectSize: 5 });
  });
});
