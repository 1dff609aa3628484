/**
 * The HTTP integration prelude a streaming function writes before its body (JSON with status, headers and
 * cookies, then 8 NUL bytes), as the Function URL stand-in reads it back.
 */

/** The function's response stream, chunk by chunk. */
export type Chunks = AsyncIterator<Buffer>;

/** A prelude is status, headers and cookies; anything longer is not one. */
const MAX_PRELUDE_BYTES = 64 * 1024;

export interface Prelude {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly cookies: readonly string[];
  readonly rest: Buffer;
}

/** Reads up to the 8 NUL bytes that end the JSON prelude (JSON text never contains a NUL byte). */
export async function readPrelude(first: Buffer, chunks: Chunks): Promise<Prelude | 'empty' | 'invalid'> {
  let buffered = first;
  for (let ended = first.length === 0; ; ) {
    if (ended) return buffered.length === 0 ? 'empty' : 'invalid';
    const nul = buffered.indexOf(0);
    if (nul >= 0 && buffered.length >= nul + 8) {
      if (!buffered.subarray(nul, nul + 8).every((b) => b === 0)) return 'invalid';
      return parsePrelude(buffered.subarray(0, nul), buffered.subarray(nul + 8));
    }
    if (buffered.length > MAX_PRELUDE_BYTES) return 'invalid';
    const next = await chunks.next();
    if (next.done) ended = true;
    else buffered = Buffer.concat([buffered, next.value]);
  }
}

function parsePrelude(json: Buffer, rest: Buffer): Prelude | 'invalid' {
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return 'invalid';
  }
  if (typeof value !== 'object' || value === null) return 'invalid';
  const { statusCode, headers, cookies } = value as { statusCode?: unknown; headers?: unknown; cookies?: unknown };
  const out: Record<string, string> = {};
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, v] of Object.entries(headers)) out[name.toLowerCase()] = String(v);
  }
  return {
    statusCode: typeof statusCode === 'number' ? statusCode : 200,
    headers: out,
    cookies: Array.isArray(cookies) ? cookies.map(String) : [],
    rest,
  };
}

export function responseHeaders(prelude: Prelude, awsRequestId: string): Record<string, string | string[]> {
  return {
    ...prelude.headers,
    ...(prelude.cookies.length > 0 ? { 'set-cookie': [...prelude.cookies] } : {}),
    'x-amzn-requestid': awsRequestId,
  };
}
