import type { BackendRequest, Dispatch, HeaderMap, ProxyRequest, ProxyResponse, ReadonlyHeaders, ResponseHead, RewriteBody } from '../../../functions/core/http';
import { runDispatch, type Dispatcher, type DispatchRuntime } from '../../../functions/runtime/shared/dispatch';

/**
 * The dispatch loop on a runtime of its own: a client body in hand, a backend that answers from a table,
 * and a record of what each primitive was asked to do. What the core decides is scripted per case.
 */

interface FakeExchange {
  readonly request: ProxyRequest;
  /** The client's body, or `'stalls'` for one that stops arriving. */
  readonly clientBody: Uint8Array | 'stalls';
}

interface FakeBackendAnswer {
  readonly status: number;
  readonly headers: HeaderMap;
  readonly body: string;
}

interface Sent {
  readonly status: number;
  readonly body: string;
  readonly error?: unknown;
  readonly bodyAbandoned?: boolean;
}

class FakeRuntime implements DispatchRuntime<FakeExchange, FakeBackendAnswer, Sent> {
  readonly calls: string[] = [];

  constructor(private readonly backend: (request: BackendRequest) => FakeBackendAnswer | Error) {}

  async collectBody(exchange: FakeExchange, maxBytes: number): Promise<Uint8Array | 'too-large' | 'stalled'> {
    this.calls.push(`collect at most ${maxBytes}`);
    if (exchange.clientBody === 'stalls') return 'stalled';
    return exchange.clientBody.length > maxBytes ? 'too-large' : exchange.clientBody;
  }

  async forward(_exchange: FakeExchange, request: BackendRequest): Promise<FakeBackendAnswer> {
    this.calls.push(`forward ${request.method} ${request.url}`);
    const answer = this.backend(request);
    if (answer instanceof Error) throw answer;
    return answer;
  }

  backendStatus(backend: FakeBackendAnswer): number {
    return backend.status;
  }

  backendHeaders(backend: FakeBackendAnswer): ReadonlyHeaders {
    return new Headers(backend.headers);
  }

  discard(backend: FakeBackendAnswer): void {
    this.calls.push(`discard ${JSON.stringify(backend.body)}`);
  }

  async readBackendBody(backend: FakeBackendAnswer, maxBytes: number): Promise<Uint8Array | undefined> {
    this.calls.push(`read backend body, at most ${maxBytes}`);
    const bytes = new TextEncoder().encode(backend.body);
    return bytes.length > maxBytes ? undefined : bytes;
  }

  async respond(_exchange: FakeExchange, response: ProxyResponse, bodyAbandoned = false): Promise<Sent> {
    this.calls.push(`respond ${response.status}${bodyAbandoned ? ', body abandoned' : ''}`);
    return bodyAbandoned ? { status: response.status, body: String(response.body), bodyAbandoned } : { status: response.status, body: String(response.body) };
  }

  stream(_exchange: FakeExchange, backend: FakeBackendAnswer, head: ResponseHead): Sent {
    this.calls.push(`stream ${head.status} ${JSON.stringify(head.headers)}`);
    return { status: head.status, body: backend.body };
  }

  failed(result: Sent, error: unknown): Sent {
    this.calls.push(`failed ${(error as Error).message}`);
    return { ...result, error };
  }
}

const request: ProxyRequest = { requestId: 'R1', method: 'PUT', rawPath: '/b/k', rawQuery: '', headers: new Headers(), body: () => new ReadableStream<Uint8Array>() };

function exchange(body: string | 'stalls' = ''): FakeExchange {
  return { request, clientBody: body === 'stalls' ? body : new TextEncoder().encode(body) };
}

/** The core, scripted: the first dispatch per request, and failures as a 5xx naming the error. */
function core(first: Dispatch): Dispatcher & { failures: unknown[] } {
  const failures: unknown[] = [];
  return {
    failures,
    handle: async () => first,
    failure: (err) => {
      failures.push(err);
      return { status: 503, headers: {}, body: `failure: ${(err as Error).message}` };
    },
  };
}

const respond = (status: number, body: string): Dispatch => ({ kind: 'response', response: { status, headers: {}, body } });

function forward(respondTo: (status: number, headers: ReadonlyHeaders) => ResponseHead | ProxyResponse | RewriteBody): Dispatch {
  return { kind: 'forward', request: { method: 'GET', url: 'http://store/b/k', headers: {} }, respond: respondTo };
}

describe('the dispatch loop', () => {
  it('GIVEN a Response THEN it is sent as the core built it', async () => {
    const runtime = new FakeRuntime(() => new Error('no backend'));
    expect(await runDispatch(core(respond(200, 'listing')), exchange(), runtime)).toEqual({ status: 200, body: 'listing' });
    expect(runtime.calls).toEqual(['respond 200']);
  });

  it('GIVEN NeedsBody THEN at most maxBytes is collected and handed back, until the core has what it needs', async () => {
    const seen: string[] = [];
    const needsBody = (maxBytes: number, then: (body: string) => Dispatch): Dispatch => ({
      kind: 'needs-body',
      maxBytes,
      withBody: async (body) => {
        seen.push(new TextDecoder().decode(body));
        return then(new TextDecoder().decode(body));
      },
      tooLarge: () => respond(400, 'too large'),
      timedOut: () => respond(400, 'RequestTimeout'),
    });
    const runtime = new FakeRuntime(() => new Error('no backend'));
    const first = needsBody(100, (body) => needsBody(50, (again) => respond(200, `${body}+${again}`)));
    expect(await runDispatch(core(first), exchange('<Delete/>'), runtime)).toEqual({ status: 200, body: '<Delete/>+<Delete/>' });
    expect(seen).toEqual(['<Delete/>', '<Delete/>']);
    expect(runtime.calls).toEqual(['collect at most 100', 'collect at most 50', 'respond 200']);
  });

  it('GIVEN NeedsBody and a larger body THEN the core\'s tooLarge answer is sent', async () => {
    const runtime = new FakeRuntime(() => new Error('no backend'));
    const first: Dispatch = { kind: 'needs-body', maxBytes: 4, withBody: async () => respond(200, 'taken'), tooLarge: () => respond(400, 'EntityTooLarge'), timedOut: () => respond(400, 'RequestTimeout') };
    expect(await runDispatch(core(first), exchange('12345'), runtime)).toEqual({ status: 400, body: 'EntityTooLarge' });
    expect(runtime.calls).toEqual(['collect at most 4', 'respond 400']);
  });

  it('GIVEN a Forward THEN the backend\'s status and headers go through respond, and its body is streamed under the head it returns', async () => {
    const runtime = new FakeRuntime(() => ({ status: 206, headers: { etag: '"e"' }, body: 'bytes' }));
    const seen: Array<[number, string | null]> = [];
    const first = forward((status, headers) => {
      seen.push([status, headers.get('etag')]);
      return { status, headers: { etag: headers.get('etag') ?? '' } };
    });
    expect(await runDispatch(core(first), exchange(), runtime)).toEqual({ status: 206, body: 'bytes' });
    expect(seen).toEqual([[206, '"e"']]);
    expect(runtime.calls).toEqual(['forward GET http://store/b/k', 'stream 206 {"etag":"\\"e\\""}']);
  });

  it('GIVEN a Forward whose answer the core replaces (a backend error as S3 XML) THEN the backend body is discarded and the core\'s response sent', async () => {
    const runtime = new FakeRuntime(() => ({ status: 500, headers: {}, body: 'backend trace' }));
    const first = forward(() => ({ status: 500, headers: {}, body: '<Error><Code>InternalError</Code></Error>' }));
    expect(await runDispatch(core(first), exchange(), runtime)).toEqual({ status: 500, body: '<Error><Code>InternalError</Code></Error>' });
    expect(runtime.calls).toEqual(['forward GET http://store/b/k', 'discard "backend trace"', 'respond 500']);
  });

  it('GIVEN a backend that cannot be reached THEN the core\'s S3 error for it is sent, and the result carries the error', async () => {
    const unreachable = new Error('unreachable');
    const runtime = new FakeRuntime(() => unreachable);
    const gateway = core(forward((status, headers) => ({ status, headers: { n: String(headers.has('x')) } })));
    expect(await runDispatch(gateway, exchange(), runtime)).toEqual({ status: 503, body: 'failure: unreachable', error: unreachable });
    expect(gateway.failures).toEqual([unreachable]);
    expect(runtime.calls).toEqual(['forward GET http://store/b/k', 'respond 503', 'failed unreachable']);
  });

  it('GIVEN a body the core refuses while reading it THEN that failure is answered the same way', async () => {
    const runtime = new FakeRuntime(() => new Error('no backend'));
    const first: Dispatch = { kind: 'needs-body', maxBytes: 10, withBody: async () => Promise.reject(new Error('malformed')), tooLarge: () => respond(400, 'too large'), timedOut: () => respond(400, 'RequestTimeout') };
    expect(await runDispatch(core(first), exchange('<x'), runtime)).toMatchObject({ status: 503, body: 'failure: malformed' });
    expect(runtime.calls).toEqual(['collect at most 10', 'respond 503', 'failed malformed']);
  });

  it('GIVEN NeedsBody and a body that stops arriving THEN the core\'s timedOut answer is sent, saying the body was abandoned', async () => {
    const runtime = new FakeRuntime(() => new Error('no backend'));
    const first: Dispatch = { kind: 'needs-body', maxBytes: 10, withBody: async () => respond(200, 'taken'), tooLarge: () => respond(400, 'too large'), timedOut: () => respond(400, 'RequestTimeout') };
    expect(await runDispatch(core(first), exchange('stalls'), runtime)).toEqual({ status: 400, body: 'RequestTimeout', bodyAbandoned: true });
    expect(runtime.calls).toEqual(['collect at most 10', 'respond 400, body abandoned']);
  });

  it('GIVEN a Forward whose answer the core rewrites THEN the backend body is read, bounded, and the rewrite sent', async () => {
    const runtime = new FakeRuntime(() => ({ status: 404, headers: {}, body: '<Error><BucketName>backend</BucketName></Error>' }));
    const first = forward(() => ({ maxBytes: 1024, rewrite: (body: Uint8Array) => ({ status: 404, headers: {}, body: new TextDecoder().decode(body).replace('backend', 'virtual') }) }));
    expect(await runDispatch(core(first), exchange(), runtime)).toEqual({ status: 404, body: '<Error><BucketName>virtual</BucketName></Error>' });
    expect(runtime.calls).toEqual(['forward GET http://store/b/k', 'read backend body, at most 1024', 'respond 404']);
  });
});
