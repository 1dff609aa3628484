/**
 * Reading TOML tables with every problem recorded (table, entry and field named), and the configuration's
 * error type. Shared by the file's readers (parse.ts, backend-options.ts) and the environment's (settings.ts).
 */
import { fromBase64, fromBase64Url } from '../bytes';

/** Thrown when the configuration is invalid; `problems` lists every error found, each naming where it is. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export type Environment = Readonly<Record<string, string | undefined>>;

export type Table = Record<string, unknown>;

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^/\s]+/i.test(value);
}

export function isHttpsUrl(value: string): boolean {
  return /^https:\/\/[^/\s]+/i.test(value);
}

/** Standard base64 or base64url, as keys are written in either. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return fromBase64(trimmed) ?? fromBase64Url(trimmed.replace(/=+$/, ''));
}

/** Reads one TOML table, recording problems with the table's path and the entry's label. */
export class Reader {
  private name?: string;

  constructor(
    private readonly data: Table,
    private readonly where: string,
    private readonly env: Environment,
    private readonly problems: string[],
  ) {}

  label(name: string): void {
    if (name) this.name = name;
  }

  problem(field: string, message: string): void {
    const entry = this.name ? ` "${this.name}"` : '';
    this.problems.push(`${this.where}${entry}: ${this.prefix}${field} ${message}`);
  }

  allowOnly(fields: readonly string[]): void {
    for (const field of Object.keys(this.data)) {
      if (!fields.includes(field)) this.problem(field, `is not a known field (known: ${fields.join(', ')})`);
    }
  }

  tables(field: string): Reader[] {
    const value = this.data[field];
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((v) => !isTable(v))) {
      this.problem(field, `must be an array of tables ([[${field}]])`);
      return [];
    }
    return value.map((v, i) => new Reader(v as Table, `${this.where === 'configuration' ? '' : this.where + '.'}[[${field}]] #${i + 1}`, this.env, this.problems));
  }

  table(field: string): Reader {
    const value = this.data[field];
    if (!isTable(value)) {
      this.problem(field, 'must be a table');
      return new Reader({}, `${this.where}.${field}`, this.env, []);
    }
    const reader = new Reader(value, `${this.where}`, this.env, this.problems);
    reader.name = this.name;
    reader.prefix = `${field}.`;
    return reader;
  }

  private prefix = '';

  has(field: string): boolean {
    return this.data[field] !== undefined;
  }

  private value(field: string): unknown {
    return this.data[field];
  }

  optionalString(field: string): string | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      this.problem(field, 'must be a string');
      return undefined;
    }
    return v;
  }

  requiredString(field: string): string {
    const v = this.optionalString(field);
    if (v === undefined || v === '') {
      if (this.value(field) === undefined || v === '') this.problem(field, 'is required');
      return '';
    }
    return v;
  }

  optionalUrl(field: string): string | undefined {
    const v = this.optionalString(field);
    if (v !== undefined && !isHttpUrl(v)) this.problem(field, `"${v}" is not an http(s) URL`);
    return v?.replace(/\/+$/, '');
  }

  optionalBoolean(field: string): boolean | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') this.problem(field, 'must be true or false');
    return v === true;
  }

  optionalInteger(field: string): number | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) {
      this.problem(field, 'must be an integer');
      return undefined;
    }
    return n;
  }

  stringArray(field: string): string[] {
    const v = this.value(field);
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
      this.problem(field, 'must be an array of strings');
      return [];
    }
    return v as string[];
  }

  /** A secret written literally or as `{ env = "NAME" }`. */
  optionalSecret(field: string): string | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    if (typeof v === 'string') return v;
    if (isTable(v) && typeof v.env === 'string' && Object.keys(v).length === 1) {
      const resolved = this.env[v.env];
      if (resolved === undefined || resolved === '') {
        this.problem(field, `refers to environment variable ${v.env}, which is not set`);
        return undefined;
      }
      return resolved;
    }
    this.problem(field, 'must be a string or { env = "NAME" }');
    return undefined;
  }

  requiredSecret(field: string): string {
    const v = this.optionalSecret(field);
    if (v === undefined && this.value(field) === undefined) this.problem(field, 'is required');
    return v ?? '';
  }
}

export function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
