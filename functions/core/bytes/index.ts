/**
 * Bytes and crypto for the whole core: hex, base64, UTF-8, the one RFC 3986 encoder, SHA-256 and HMAC. It
 * imports nothing from the rest of the core, so every layer may use it.
 */
export { fromBase64, fromBase64Url, fromUtf8, toBase64, toBase64Url, toHex, timingSafeEqual, utf8, utf8Length, wireBytes } from './encoding';
export { decodeUtf8, utf8Pieces, Utf8ChunkDecoder } from './utf8-pieces';
export { hmac, hmacSha1, importHmacKey, sha256Hex, sha256HexSync } from './digest';
export type { CryptoKey, HmacKey } from './digest';
export { HmacSha256, Sha256 } from './sha256';
export { uriEncode } from './uri';
