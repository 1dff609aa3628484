/**
 * The raw query string as sent, parsed once. Names and values are percent-decoded (`+` stays a plus, as S3
 * clients encode spaces as %20); the first occurrence of a name wins.
 */
export class Query {
  private readonly params = new Map<string, string>();

  constructor(readonly raw: string) {
    if (raw === '') return;
    for (const part of raw.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = safeDecode(eq < 0 ? part : part.slice(0, eq));
      if (!this.params.has(name)) this.params.set(name, eq < 0 ? '' : safeDecode(part.slice(eq + 1)));
    }
  }

  has(name: string): boolean {
    return this.params.has(name);
  }

  get(name: string): string | undefined {
    return this.params.get(name);
  }

  names(): IterableIterator<string> {
    return this.params.keys();
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
