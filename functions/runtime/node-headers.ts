import type { IncomingHttpHeaders } from 'node:http';
import type { ReadonlyHeaders } from '../core/http';

/**
 * Node's header objects seen through the core's read-only Headers interface, without building a fetch
 * `Headers`: that costs a validated copy of every header per request and per backend response, a measurable
 * share of a small GET (README, Performance). Node's HTTP parser has already refused what `Headers` would.
 */
export class NodeHeaders implements ReadonlyHeaders {
  private constructor(private readonly byName: Readonly<Record<string, string>>) {}

  /**
   * A request's headers from `rawHeaders`: repeated headers joined with `,` (SigV4's canonical form, and
   * what Function URLs do), where `IncomingMessage.headers` would join some with `, ` and drop others.
   */
  static fromRaw(raw: readonly string[]): NodeHeaders {
    const byName: Record<string, string> = Object.create(null) as Record<string, string>;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const previous = byName[name];
      byName[name] = previous === undefined ? raw[i + 1] : `${previous},${raw[i + 1]}`;
    }
    return new NodeHeaders(byName);
  }

  /** A response's parsed headers; repeated values (Set-Cookie) joined with `, ` as `Headers.get` does. */
  static fromIncoming(incoming: IncomingHttpHeaders): NodeHeaders {
    const byName: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const name in incoming) {
      const value = incoming[name];
      if (value !== undefined) byName[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return new NodeHeaders(byName);
  }

  get(name: string): string | null {
    return this.byName[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return this.byName[name.toLowerCase()] !== undefined;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name in this.byName) callback(this.byName[name], name);
  }
}
