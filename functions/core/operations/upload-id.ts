/**
 * Upload ids for stores without S3's multipart API (Azure): the gateway keeps no state between the calls of
 * an upload, so its id holds what later calls need, sealed with AES-256-GCM under a key derived from
 * SESSION_TOKEN_KEY (purpose "upload id"; without SESSION_TOKEN_KEY a random key per process or isolate, so an
 * upload must then finish on the instance that began it). The GCM nonce is the upload's own random nonce,
 * which names its parts at the store; the virtual bucket and key are the additional data, bound to the id
 * without taking room in it. Sealed: the headers the completed object will carry, in the store's terms.
 *
 * An id that does not open (forged, altered, for another bucket or key, or from another deployment) is
 * NoSuchUpload, as S3 answers an unknown upload id.
 */
import { S3Error } from '../errors';
import type { HeaderMap } from '../http';
import { fromBase64Url, toBase64Url, type CryptoKey } from '../bytes';
import { deriveKey } from '../listing/token';
import type { MultipartUpload } from '../backends/store';

/** Bytes of an upload's nonce (AES-GCM's IV). */
const UPLOAD_NONCE_BYTES = 12;
const TAG_BYTES = 16;
/**
 * S3's metadata limit (2 KiB) and tag limits (10 tags of 384 characters) bound what an id seals: ordinary
 * ids stay far shorter; one longer than this is never made (`seal`) nor opened.
 */
const MAX_ID_CHARS = 16 * 1024;
const PURPOSE = 's3-gateway upload id v1';

export class UploadIds {
  private key?: Promise<CryptoKey>;

  /** @param secret SESSION_TOKEN_KEY's bytes; absent: a random key, drawn on first use. */
  constructor(private readonly secret?: Uint8Array) {}

  private cryptoKey(): Promise<CryptoKey> {
    this.key ??= deriveKey(this.secret ?? crypto.getRandomValues(new Uint8Array(32)), PURPOSE);
    return this.key;
  }

  /**
   * A new upload of `key` in the virtual bucket `bucket`, whose object will carry `headers`: its id.
   *
   * @throws S3Error InvalidArgument when the headers would make an id `open` refuses (ten tags of the longest,
   *   all of characters Azure takes escaped, with 2 KiB of metadata), rather than an upload no part can name.
   */
  async seal(bucket: string, key: string, headers: HeaderMap): Promise<string> {
    const nonce = crypto.getRandomValues(new Uint8Array(UPLOAD_NONCE_BYTES));
    const plaintext = new TextEncoder().encode(JSON.stringify(headers));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: boundTo(bucket, key) }, await this.cryptoKey(), plaintext));
    const out = new Uint8Array(UPLOAD_NONCE_BYTES + sealed.length);
    out.set(nonce, 0);
    out.set(sealed, UPLOAD_NONCE_BYTES);
    const id = toBase64Url(out);
    if (id.length > MAX_ID_CHARS) throw new S3Error('InvalidArgument', "The upload's object headers and tags are too long to be carried in an upload id on this backend");
    return id;
  }

  /**
   * The upload `id` names, when this gateway made it for `key` in `bucket`.
   *
   * @throws S3Error NoSuchUpload otherwise.
   */
  async open(bucket: string, key: string, id: string): Promise<MultipartUpload> {
    const bytes = id.length <= MAX_ID_CHARS ? fromBase64Url(id) : undefined;
    if (bytes === undefined || bytes.length < UPLOAD_NONCE_BYTES + TAG_BYTES) throw noSuchUpload(id);
    const nonce = bytes.slice(0, UPLOAD_NONCE_BYTES);
    let plaintext: ArrayBuffer;
    try {
      plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce, additionalData: boundTo(bucket, key) }, await this.cryptoKey(), bytes.subarray(UPLOAD_NONCE_BYTES));
    } catch {
      throw noSuchUpload(id);
    }
    const headers: unknown = JSON.parse(new TextDecoder().decode(plaintext));
    return { key, nonce, headers: headers as HeaderMap };
  }
}

function boundTo(bucket: string, key: string): Uint8Array {
  return new TextEncoder().encode(`${PURPOSE}\0${bucket}\0${key}`);
}

function noSuchUpload(uploadId: string): S3Error {
  return new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', { UploadId: uploadId });
}
