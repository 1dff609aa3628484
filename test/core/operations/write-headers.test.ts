import { S3Error } from '../../../functions/core/errors';
import { checkMetadataSize, MAX_METADATA_BYTES, putHeaders } from '../../../functions/core/operations/write-headers';

/** The code checkMetadataSize throws for `headers`, with its Size, or 'accepted'. */
function refusal(headers: Record<string, string>): string {
  try {
    checkMetadataSize(headers);
    return 'accepted';
  } catch (err) {
    return err instanceof S3Error ? `${err.code} ${err.detail.Size}/${err.detail.MaxSizeAllowed}` : 'not an S3Error';
  }
}

describe('checkMetadataSize: S3\'s 2 KiB of user metadata', () => {
  it('counts every name after x-amz-meta- and its value, and nothing else', () => {
    const name = 'n'.repeat(48);
    expect(refusal({ [`x-amz-meta-${name}`]: 'v'.repeat(MAX_METADATA_BYTES - 48), 'content-type': 'x'.repeat(4000) })).toBe('accepted');
    expect(refusal({ [`x-amz-meta-${name}`]: 'v'.repeat(MAX_METADATA_BYTES - 47) })).toBe('MetadataTooLarge 2049/2048');
  });

  it('sums over all the metadata headers', () => {
    const headers = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`x-amz-meta-k${String(i).padStart(2, '0')}`, 'v'.repeat(125)]));
    expect(refusal(headers)).toBe('accepted');
    expect(refusal({ ...headers, 'x-amz-meta-a': '' })).toBe('MetadataTooLarge 2049/2048');
  });

  it('counts bytes: a received byte string one per character, text beyond U+00FF as UTF-8', () => {
    // `é` as received: the two bytes of its UTF-8, one character each.
    expect(refusal({ 'x-amz-meta-a': '\u00c3\u00a9'.repeat(1023) })).toBe('accepted');
    expect(refusal({ 'x-amz-meta-a': '\u00c3\u00a9'.repeat(1024) })).toBe('MetadataTooLarge 2049/2048');
    expect(refusal({ 'x-amz-meta-a': '\u20ac'.repeat(683) })).toBe('MetadataTooLarge 2050/2048');
  });

  it('is checked on the headers a PUT passes on', () => {
    const headers = new Headers({ 'x-amz-meta-big': 'v'.repeat(3000) });
    expect(refusal(putHeaders(headers))).toBe('MetadataTooLarge 3003/2048');
  });
});
