import { parseTraceparent, traceContext, withTrace } from '../../../functions/core/observability/trace';
import { keepsOneHiddenClass } from '../../support/v8-natives';

const headers = (values: Record<string, string>): Headers => new Headers(values);
const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceContext', () => {
  it("continues a client's valid traceparent with a span of its own", () => {
    const trace = traceContext(headers({ traceparent: VALID, tracestate: 'congo=t61rcWkgMzE' }));
    expect(trace).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: '01', state: 'congo=t61rcWkgMzE' });
    expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.spanId).not.toBe('00f067aa0ba902b7');
  });

  it.each([
    ['absent', undefined],
    ['upper-case hex', VALID.toUpperCase()],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['version 00 with more fields', `${VALID}-extra`],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
    ['garbage', 'not a traceparent'],
  ])('starts a new trace when the traceparent is %s, and ignores its tracestate', (_, value) => {
    const trace = traceContext(headers(value === undefined ? { tracestate: 'a=b' } : { traceparent: value, tracestate: 'a=b' }));
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(trace.parentId).toBeUndefined();
    expect(trace.state).toBeUndefined();
    expect(trace.flags).toBe('00');
  });

  it('draws a different trace for every request without one', () => {
    const ids = new Set(Array.from({ length: 100 }, () => traceContext(headers({})).traceId));
    expect(ids.size).toBe(100);
  });
});

describe('parseTraceparent', () => {
  it('accepts a later version with more fields after a dash, keeping only the sampled flag', () => {
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03-whatever')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
      flags: '01',
    });
  });
});

describe('withTrace', () => {
  it("names the gateway's span as the backend request's parent, and passes tracestate on", () => {
    const trace = traceContext(headers({ traceparent: VALID, tracestate: 'congo=1' }));
    const out = withTrace({ authorization: 'AWS4-HMAC-SHA256 …', tracestate: 'forged' }, trace);
    expect(out.traceparent).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${trace.spanId}-01`);
    expect(out.tracestate).toBe('congo=1');
    expect(out.authorization).toBe('AWS4-HMAC-SHA256 …');
  });

  it('drops a tracestate that no valid traceparent came with', () => {
    expect(withTrace({ tracestate: 'x=1' }, traceContext(headers({}))).tracestate).toBeUndefined();
  });

  it('gives every forwarded request of one shape the same hidden class (no spread followed by new properties, no delete)', () => {
    const trace = traceContext(headers({}));
    expect(keepsOneHiddenClass((i) => withTrace({ host: 'backend', 'x-amz-date': `2026112${i % 10}T000000Z`, authorization: 'AWS4-HMAC-SHA256 …' }, trace))).toBe(true);
  });
});
