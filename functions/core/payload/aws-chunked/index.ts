/** aws-chunked uploads: decoding, and the chunk and trailer signatures it verifies. */
export {
  AwsChunkedDecoder,
  MAX_SIGNED_CHUNK_BYTES,
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
  isStreamingPayload,
  parseTrailerHeader,
} from './decoder';
export type { AwsChunkedOptions, StreamingPayload } from './decoder';
export { chunkSignature, chunkStringToSign, trailerSignature, trailerStringToSign } from './signatures';
export type { ChunkSigningSeed } from './signatures';
