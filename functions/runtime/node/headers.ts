import type { IncomingHttpHeaders } from 'node:http';
import type { ReadonlyHeaders } from '../../core/http';

/**
 * Node's header objects seen through the core's read-only Headers interface, without building a fetch
 * `Headers`: that costs a validated copy of every header per request and per backend response, a measurable
 * share of a small GET (docs/performance-notes.md). Node's HTTP parser has already refused what `Headers` would.
 */
export const NodeHeaders = {
  /**
   * A request's headers from `rawHeaders`: repeated headers joined with `,` (SigV4's canonical form, and
   * what Function URLs do), where `IncomingMessage.headers` would join some with `, ` and drop others.
   */
  fromRaw: (raw: readonly string[]): ReadonlyHeaders => new RawHeaders(raw),
  /** A response's parsed headers; repeated values (Set-Cookie) joined with `, ` as `Headers.get` does. */
  fromIncoming: (incoming: IncomingHttpHeaders): ReadonlyHeaders => new IncomingHeaders(incoming),
};

/** A Map, not an object: a dictionary-mode object per request cost measurably more to fill. */
class RawHeaders implements ReadonlyHeaders {
  private readonly byName = new Map<string, string>();

  constructor(raw: readonly string[]) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const previous = this.byName.get(name);
      this.byName.set(name, previous === undefined ? raw[i + 1] : `${previous},${raw[i + 1]}`);
    }
  }

  get(name: string): string | null {
    return this.byName.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.byName.has(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string) => void): void {
    this.byName.forEach(callback);
  }
}

/** Reads Node's parsed object in place (names already lower-case): no copy per backend response. */
class IncomingHeaders implements ReadonlyHeaders {
  constructor(private readonly incoming: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    // Own properties only: `constructor` and friends live on the prototype.
    return Object.hasOwn(this.incoming, key) ? joined(this.incoming[key]) : null;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name of Object.keys(this.incoming)) {
      const value = joined(this.incoming[name]);
      if (value !== null) callback(value, name);
    }
  }
}

function joined(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
