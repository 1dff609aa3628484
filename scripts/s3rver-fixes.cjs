'use strict';
/**
 * Preloaded into s3rver (scripts/s3rver.ts) to mend twelve of its departures from S3 that clients of the
 * local default run into. The gateway answers as S3 does on S3 and RGW; these are s3rver's own.
 *
 * - A common prefix holding only deeper "directories" went missing from delimiter listings: its listing
 *   walks the key files and skips a directory below a common prefix without noting the prefix, so
 *   `aws s3 ls s3://b/x/` over `x/a/b/f.txt` showed no `PRE a/` (and `rclone check` missed the files).
 *   The walk now hands on the first object inside such a directory, which the listing folds into its
 *   common prefix as it does for any key.
 * - It reads a copy's `x-amz-copy-source` with `decodeURI`, which leaves `%2B`, `%23`, `%24`, `%26`,
 *   `%2C`, `%3A`, `%3B`, `%3D`, `%3F` and `%40` encoded, so it could not copy a key holding
 *   `+ # $ & , : ; = ? @` (`aws s3 mv` of `a+b.txt` answered NoSuchKey). The header, decoded in full, is
 *   re-encoded in the form `decodeURI` reverses. s3rver has no versioning, so a `?versionId=` is dropped.
 * - It reads a suffix range (`bytes=-N`, the last N bytes, as readers of file footers ask) as `bytes=0-N`.
 *   The range is turned into the absolute one S3 would serve, from the object's size.
 * - It has no UploadPartCopy, with which aws-cli, boto3 and rclone copy an object over their multipart
 *   threshold (8 MiB) inside a store, so `aws s3 cp s3://b/big s3://b/copy` failed. A part copy is served
 *   here from s3rver's own store: the source's range read, and written as the part.
 * - DeleteObjects deleted its keys all at once, and each deletion removes the folders it leaves empty, so
 *   two keys in one folder raced (500, `ENOTEMPTY` or `ENOENT`) and boto3's `objects.delete()` needed a
 *   retry. Deletions now run one at a time.
 * - It ignored `If-None-Match` and `If-Match` on PutObject and CompleteMultipartUpload, so a conditional
 *   write overwrote what S3 refuses with 412: two writers of one lock file (`If-None-Match: *`, as
 *   Terraform's S3 backend takes its lock) both succeeded. The conditions are checked against the stored
 *   object before the write, as S3 answers them (412 PreconditionFailed; NoSuchKey for `If-Match` on a
 *   missing key; 501 for an `If-None-Match` other than `*`), with one conditional write at a time, so two
 *   of them cannot both find the key free.
 * - It wrote a PUT's or a part's bytes straight into the object's file and never read `Content-MD5`, so an
 *   aborted upload left a truncated object in place of the old one (and its request pending for ever), and
 *   a body that did not match its digest was stored. Bodies are now written beside the file and renamed
 *   into place only when whole and matching (400 BadDigest, InvalidDigest for a malformed digest).
 * - It took parts for any upload id (creating the upload's folder, or one anywhere else for an id holding
 *   `../`), and completed an upload with parts in any order, with any ETags, and by crashing the whole
 *   server on a part never uploaded. Those are now S3's 404 NoSuchUpload, 400 InvalidPartOrder and 400
 *   InvalidPart.
 * - It answered GetBucketVersioning (`GET /bucket?versioning`) with a listing of the bucket. It keeps no
 *   versions, so the answer is now a bucket's that was never versioned: an empty configuration.
 * - It had no AbortMultipartUpload (405 MethodNotAllowed), so an upload that aws-cli, boto3 or the JS
 *   SDK's lib-storage gave up on stayed on disk. An abort now removes the upload and its parts.
 * - It had no ListParts (405) and no ListMultipartUploads (501), so a client could neither resume an
 *   upload nor find the ones left behind (`aws s3api list-multipart-uploads`, `rclone cleanup`). Both are
 *   read from its upload folders, paged and ordered as S3 lists them.
 */
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { AsyncLocalStorage } = require('async_hooks');
const { Transform } = require('stream');
const { pipeline } = require('stream/promises');

// Before the store module is loaded: it keeps the `walk` it finds when it is.
const utils = require('s3rver/lib/utils');
const OBJECT_FILE = '._S3rver_object';

utils.walk = function* walk(dir, recurseFilter) {
  for (const name of fs.readdirSync(dir)) {
    const filePath = path.posix.join(dir, name);
    if (!fs.statSync(filePath).isDirectory()) yield filePath;
    else if (!recurseFilter || recurseFilter(filePath)) yield* walk(filePath, recurseFilter);
    else {
      const first = firstObject(filePath);
      if (first !== undefined) yield first;
    }
  }
};

function firstObject(dir) {
  for (const filePath of utils.walk(dir)) if (filePath.endsWith(OBJECT_FILE)) return filePath;
  return undefined;
}

const FilesystemStore = require('s3rver/lib/stores/filesystem');
const deleteObject = FilesystemStore.prototype.deleteObject;
let deletions = Promise.resolve();
FilesystemStore.prototype.deleteObject = function deleteOneAtATime(bucket, key) {
  const deletion = deletions.then(() => deleteObject.call(this, bucket, key));
  deletions = deletion.catch(() => undefined);
  return deletion;
};

const objects = require('s3rver/lib/controllers/object');
const router = require('s3rver/lib/routes');
const S3Error = require('s3rver/lib/models/error');

/** `/bucket/key` or `bucket/key`, percent-encoded, without its query: bucket and key decoded. */
function bucketAndKey(encodedPath) {
  const [bucket, ...key] = encodedPath.split('?')[0].replace(/^\//, '').split('/').map(decodeURIComponent);
  return { bucket, key: key.join('/') };
}

// s3rver's router refuses a part copy and an abort, and lists a bucket for `?versioning`, before any
// controller runs, so these are answered ahead of the router.
const routes = router.routes.bind(router);
router.routes = function routesWithMissingOperations() {
  const dispatch = routes();
  return (ctx, next) => {
    const objectPath = /^\/[^/]+\/./.test(ctx.path);
    const partCopy = ctx.method === 'PUT' && ctx.query.uploadId && ctx.query.partNumber && 'x-amz-copy-source' in ctx.headers;
    if (partCopy) return uploadPartCopy(ctx);
    if (ctx.method === 'DELETE' && objectPath && ctx.query.uploadId !== undefined) return abortUpload(ctx);
    if (ctx.method === 'GET' && !objectPath && 'versioning' in ctx.query) return bucketVersioning(ctx);
    if (ctx.method === 'GET' && objectPath && ctx.query.uploadId !== undefined) return listParts(ctx);
    if (ctx.method === 'GET' && !objectPath && 'uploads' in ctx.query) return listUploads(ctx);
    return dispatch(ctx, next);
  };
};

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const OWNER = { ID: 's3rver', DisplayName: 's3rver' };

/** A whole number in the query (`fallback` when absent), else InvalidArgument. */
function queryNumber(ctx, name, fallback) {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`, { ArgumentName: name, ArgumentValue: raw });
  return Number(raw);
}

/** A `max-parts` or `max-uploads` as S3 reads it: 1000 when absent, and at most 1000. */
function maxEntries(ctx, name) {
  return Math.min(queryNumber(ctx, name, 1000), 1000);
}

/** ListParts: the parts an upload holds, by number from after `part-number-marker`. */
async function listParts(ctx) {
  const { bucket, key } = bucketAndKey(ctx.path);
  const uploadId = ctx.query.uploadId;
  const dir = await uploadDir(ctx.store, bucket, uploadId);
  if ((await fs.promises.readFile(path.join(dir, 'key'), 'utf8')) !== key) throw noSuchUpload(uploadId);
  const maxParts = maxEntries(ctx, 'max-parts');
  const marker = queryNumber(ctx, 'part-number-marker', 0);
  // A part is listed once whole: its number's file and the digest written after it (putPartWhole).
  const numbers = (await fs.promises.readdir(dir))
    .filter((name) => /^[1-9]\d*\.md5$/.test(name))
    .map((name) => Number(name.slice(0, -4)))
    .filter((n) => n > marker)
    .sort((a, b) => a - b);
  const shown = numbers.slice(0, maxParts);
  const parts = await Promise.all(shown.map(async (n) => {
    const [stat, md5] = await Promise.all([fs.promises.stat(path.join(dir, String(n))), fs.promises.readFile(path.join(dir, `${n}.md5`), 'utf8')]);
    return { PartNumber: n, LastModified: stat.mtime.toISOString(), ETag: `"${md5}"`, Size: stat.size };
  }));
  // With max-parts=0 nothing is shown, and nothing is said to follow a marker that does not move.
  const truncated = shown.length > 0 && numbers.length > shown.length;
  ctx.body = {
    ListPartsResult: {
      '@': { xmlns: XMLNS },
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      Initiator: OWNER,
      Owner: OWNER,
      StorageClass: 'STANDARD',
      PartNumberMarker: marker,
      NextPartNumberMarker: shown.length > 0 ? shown[shown.length - 1] : undefined,
      MaxParts: maxParts,
      IsTruncated: truncated,
      Part: parts,
    },
  };
}

/**
 * ListMultipartUploads: the uploads begun and not yet completed or aborted, by key and then by when they
 * began, rolled up at a delimiter, from after `key-marker` (and `upload-id-marker` within that key).
 */
async function listUploads(ctx) {
  const { bucket } = bucketAndKey(ctx.path);
  if (!(await ctx.store.getBucket(bucket))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
  const q = ctx.query;
  const prefix = q.prefix ?? '';
  const delimiter = q.delimiter || undefined;
  const keyMarker = q['key-marker'] || undefined;
  const uploadIdMarker = keyMarker === undefined ? undefined : q['upload-id-marker'] || undefined;
  const maxUploads = maxEntries(ctx, 'max-uploads');
  if (q['encoding-type'] !== undefined && q['encoding-type'] !== 'url') throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request', { ArgumentName: 'encoding-type', ArgumentValue: q['encoding-type'] });
  const encode = q['encoding-type'] === 'url' ? (s) => s && encodeURIComponent(s).replace(/%2F/g, '/') : (s) => s;

  const uploads = (await begunUploads(ctx.store, bucket)).filter((u) => u.key.startsWith(prefix));
  // Within the marker's key, the uploads after the marker's upload (none when it is gone).
  const markerAt = uploadIdMarker === undefined ? -1 : uploads.findIndex((u) => u.key === keyMarker && u.uploadId === uploadIdMarker);
  const afterMarker = (upload, i) => {
    const order = keyMarker === undefined ? 1 : byteOrder(upload.key, keyMarker);
    return order > 0 || (order === 0 && markerAt >= 0 && i > markerAt);
  };
  const entries = [];
  let truncated = false;
  for (const [i, upload] of uploads.entries()) {
    const at = delimiter === undefined ? -1 : upload.key.indexOf(delimiter, prefix.length);
    const common = at < 0 ? undefined : upload.key.slice(0, at + delimiter.length);
    if (common !== undefined ? keyMarker !== undefined && byteOrder(common, keyMarker) <= 0 : !afterMarker(upload, i)) continue;
    if (common !== undefined && entries.length > 0 && entries[entries.length - 1].common === common) continue;
    if (entries.length === maxUploads) {
      truncated = maxUploads > 0;
      break;
    }
    entries.push(common !== undefined ? { common } : { upload });
  }
  const last = entries[entries.length - 1];
  ctx.body = {
    ListMultipartUploadsResult: {
      '@': { xmlns: XMLNS },
      Bucket: bucket,
      KeyMarker: encode(keyMarker ?? ''),
      UploadIdMarker: uploadIdMarker ?? '',
      NextKeyMarker: truncated ? encode(last.common ?? last.upload.key) : undefined,
      NextUploadIdMarker: truncated && last.upload ? last.upload.uploadId : undefined,
      Delimiter: delimiter === undefined ? undefined : encode(delimiter),
      Prefix: encode(prefix),
      MaxUploads: maxUploads,
      IsTruncated: truncated,
      Upload: entries.filter((e) => e.upload).map(({ upload }) => ({
        Key: encode(upload.key),
        UploadId: upload.uploadId,
        Initiator: OWNER,
        Owner: OWNER,
        StorageClass: 'STANDARD',
        Initiated: upload.initiated.toISOString(),
      })),
      CommonPrefixes: entries.filter((e) => e.common !== undefined).map((e) => ({ Prefix: encode(e.common) })),
      EncodingType: q['encoding-type'],
    },
  };
}

/** The bucket's uploads begun and not ended, in key order and, for one key, in the order they began. */
async function begunUploads(store, bucket) {
  const root = store.getResourcePath(bucket, undefined, 'uploads');
  const ids = await fs.promises.readdir(root).catch(() => []);
  const uploads = [];
  for (const uploadId of ids) {
    const keyFile = path.join(root, uploadId, 'key');
    const [key, stat] = await Promise.all([fs.promises.readFile(keyFile, 'utf8'), fs.promises.stat(keyFile)]).catch(() => []);
    if (key !== undefined) uploads.push({ key, uploadId, initiated: stat.mtime });
  }
  return uploads.sort((a, b) => byteOrder(a.key, b.key) || a.initiated - b.initiated || byteOrder(a.uploadId, b.uploadId));
}

/** S3's order of names: by their UTF-8 bytes. */
function byteOrder(a, b) {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** AbortMultipartUpload: the upload and its parts are removed (204); one not begun, or ended, is NoSuchUpload. */
async function abortUpload(ctx) {
  const { bucket, key } = bucketAndKey(ctx.path);
  const dir = await uploadDir(ctx.store, bucket, ctx.query.uploadId);
  if ((await fs.promises.readFile(path.join(dir, 'key'), 'utf8')) !== key) throw noSuchUpload(ctx.query.uploadId);
  await fs.promises.rm(dir, { recursive: true, force: true });
  ctx.status = 204;
}

/** s3rver keeps no versions: every bucket's configuration is that of one never versioned. */
async function bucketVersioning(ctx) {
  const { bucket } = bucketAndKey(ctx.path);
  if (!(await ctx.store.getBucket(bucket))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
  ctx.type = 'application/xml';
  ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>';
}

async function uploadPartCopy(ctx) {
  const target = bucketAndKey(ctx.path);
  const source = bucketAndKey(ctx.headers['x-amz-copy-source']);
  const range = /^bytes=(\d+)-(\d+)$/.exec(ctx.headers['x-amz-copy-source-range'] ?? '');
  const object = await ctx.store.getObject(source.bucket, source.key, range ? { start: Number(range[1]), end: Number(range[2]) } : undefined);
  if (!object) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: source.key });
  if (!object.content) throw new S3Error('InvalidRange', 'The requested range is not satisfiable');
  const { md5 } = await ctx.store.putPart(target.bucket, ctx.query.uploadId, ctx.query.partNumber, object.content);
  ctx.body = { CopyPartResult: { LastModified: new Date().toISOString(), ETag: `"${md5}"` } };
}

const putObjectCopy = objects.putObjectCopy;
objects.putObjectCopy = function copyWithFullyDecodedSource(ctx) {
  try {
    const { bucket, key } = bucketAndKey(ctx.headers['x-amz-copy-source']);
    ctx.headers['x-amz-copy-source'] = encodeURI(`${bucket}/${key}`);
  } catch {
    // Not valid percent-encoding: left for s3rver to refuse as it always has.
  }
  return putObjectCopy.call(this, ctx);
};

const getObject = objects.getObject;
objects.getObject = async function getWithSuffixRanges(ctx) {
  const suffix = /^bytes=-(\d+)$/.exec(ctx.headers.range ?? '');
  if (suffix !== null) {
    const size = await objectSize(ctx.store, ctx.params.bucket, ctx.params.key);
    // Unknown objects keep their range: s3rver answers NoSuchKey before reading it.
    if (size !== undefined) ctx.headers.range = `bytes=${Math.max(0, size - Number(suffix[1]))}-`;
  }
  return getObject.call(this, ctx);
};

async function objectSize(store, bucket, key) {
  try {
    return (await fs.promises.stat(store.getResourcePath(bucket, key, 'object'))).size;
  } catch {
    return undefined;
  }
}

let conditionalWrites = Promise.resolve();

/** `write` with the object's `If-None-Match` and `If-Match` checked first, one conditional write at a time. */
function withPreconditions(write) {
  return function conditionalWrite(ctx) {
    const ifNoneMatch = ctx.headers['if-none-match'];
    const ifMatch = ctx.headers['if-match'];
    if (ifNoneMatch === undefined && ifMatch === undefined) return write.call(this, ctx);
    const run = conditionalWrites.then(async () => {
      await checkPreconditions(ctx.store, ctx.params.bucket, ctx.params.key, ifNoneMatch, ifMatch);
      return write.call(this, ctx);
    });
    conditionalWrites = run.catch(() => undefined);
    return run;
  };
}

async function checkPreconditions(store, bucket, key, ifNoneMatch, ifMatch) {
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*') {
    throw new S3Error('NotImplemented', 'A header you provided implies functionality that is not implemented', { Header: 'If-None-Match' });
  }
  const etag = await storedEtag(store, bucket, key);
  if (ifNoneMatch !== undefined && etag !== undefined) {
    throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-None-Match' });
  }
  if (ifMatch === undefined) return;
  if (etag === undefined) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: key });
  const wanted = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, '').replace(/"/g, ''));
  if (!wanted.includes('*') && !wanted.includes(etag)) {
    throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Match' });
  }
}

/** The stored object's ETag without quotes, or undefined when there is none. */
async function storedEtag(store, bucket, key) {
  try {
    return JSON.parse((await store.getMetadata(bucket, key)).etag);
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The Content-MD5 (as hex) that the PutObject or UploadPart being served declared for its body. */
const declaredMd5 = new AsyncLocalStorage();

function withDeclaredMd5(write) {
  return function writeWithDigest(ctx) {
    const header = ctx.headers['content-md5'];
    if (header === undefined) return write.call(this, ctx);
    if (!/^[A-Za-z0-9+/]{22}==$/.test(header.trim())) throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.', { 'Content-MD5': header });
    return declaredMd5.run(Buffer.from(header.trim(), 'base64').toString('hex'), () => write.call(this, ctx));
  };
}

/**
 * Writes `content` (a Buffer or a stream) to a file beside `target`, renamed into place only once the whole
 * body arrived and matched a declared Content-MD5: a write cut short or refused leaves `target` as it was.
 */
async function writeWhole(target, content) {
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.${crypto.randomBytes(6).toString('hex')}.incomplete`;
  const hash = crypto.createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Buffer.isBuffer(content) ? [content] : content, measure, fs.createWriteStream(partial));
    const md5 = hash.digest('hex');
    const declared = declaredMd5.getStore();
    if (declared !== undefined && declared !== md5) {
      throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', { ExpectedDigest: declared, CalculatedDigest: md5 });
    }
    await fs.promises.rename(partial, target);
    return { size, md5 };
  } catch (err) {
    await fs.promises.rm(partial, { force: true });
    throw err;
  }
}

FilesystemStore.prototype.putObject = async function putObjectWhole(object) {
  const { size, md5 } = await writeWhole(this.getResourcePath(object.bucket, object.key, 'object'), object.content);
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size, md5 };
};

/** The folder of an upload s3rver began (its ids are hex), or NoSuchUpload. */
async function uploadDir(store, bucket, uploadId) {
  const dir = path.join(store.getResourcePath(bucket, undefined, 'uploads'), String(uploadId));
  const begun = /^[0-9a-f]+$/.test(uploadId) && (await fs.promises.stat(path.join(dir, 'key')).then(() => true, () => false));
  if (!begun) throw noSuchUpload(uploadId);
  return dir;
}

function noSuchUpload(uploadId) {
  return new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', { UploadId: uploadId });
}

FilesystemStore.prototype.putPart = async function putPartWhole(bucket, uploadId, partNumber, content) {
  const partPath = path.join(await uploadDir(this, bucket, uploadId), String(partNumber));
  const { size, md5 } = await writeWhole(partPath, content);
  await fs.promises.writeFile(`${partPath}.md5`, md5);
  return { size, md5 };
};

const putObjectMultipart = FilesystemStore.prototype.putObjectMultipart;
FilesystemStore.prototype.putObjectMultipart = async function completeListedParts(bucket, uploadId, parts) {
  const dir = await uploadDir(this, bucket, uploadId);
  for (let i = 1; i < parts.length; i++) {
    if (!(parts[i].number > parts[i - 1].number)) {
      throw new S3Error('InvalidPartOrder', 'The list of parts was not in ascending order. Parts must be ordered by part number.', { UploadId: uploadId });
    }
  }
  for (const part of parts) {
    const stored = await fs.promises.readFile(path.join(dir, `${part.number}.md5`), 'utf8').catch(() => undefined);
    if (stored !== part.etag) {
      throw new S3Error(
        'InvalidPart',
        "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        { UploadId: uploadId, PartNumber: part.number, ETag: part.etag },
      );
    }
  }
  return putObjectMultipart.call(this, bucket, uploadId, parts);
};

objects.putObject = withDeclaredMd5(withPreconditions(objects.putObject));
objects.uploadPart = withDeclaredMd5(objects.uploadPart);
objects.completeMultipartUpload = withPreconditions(objects.completeMultipartUpload);
