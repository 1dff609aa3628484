'use strict';
/**
 * Preloaded into s3rver (scripts/s3rver.ts): s3rver reads `x-amz-copy-source` with `decodeURI`, which
 * leaves `%2B`, `%23`, `%24`, `%26`, `%2C`, `%3A`, `%3B`, `%3D`, `%3F` and `%40` encoded, so it could not find a
 * source whose key holds `+ # $ & , : ; = ? @` (`aws s3 mv` of `a+b.txt` answered NoSuchKey). S3 and RGW
 * decode the header fully, and the gateway encodes it as they expect. This re-encodes the header, once
 * decoded in full, in the form `decodeURI` reverses, so s3rver copies such keys as S3 does. s3rver has no
 * versioning, so a `?versionId=` is dropped.
 */
const objects = require('s3rver/lib/controllers/object');

const putObjectCopy = objects.putObjectCopy;
objects.putObjectCopy = function copyWithFullyDecodedSource(ctx) {
  const raw = ctx.headers['x-amz-copy-source'];
  const path = raw.split('?')[0];
  try {
    ctx.headers['x-amz-copy-source'] = path.split('/').map((part) => encodeURI(decodeURIComponent(part))).join('/');
  } catch {
    // Not valid percent-encoding: left for s3rver to refuse as it always has.
  }
  return putObjectCopy.call(this, ctx);
};
