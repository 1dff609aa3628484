/** Log lines on a Node process's stdout, where the access log and the core's events go. */

/** The core's events (token exchanges and the like) as JSON lines on stdout, next to the access log. */
export function logEvent(event: Readonly<Record<string, unknown>>): void {
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), ...event }) + '\n');
}

/**
 * Writes log lines to stdout in batches, one write per event-loop turn: stdout to a file or a pipe is
 * synchronous in Node, and a write per request was a measurable share of a small GET. For long-lived
 * servers only: a Lambda sandbox may freeze before a deferred flush, so the handler writes at once.
 */
export function batchedStdout(write: (text: string) => void = (text) => void process.stdout.write(text)): (line: string) => void {
  let pending: string[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    const text = pending.join('\n') + '\n';
    pending = [];
    write(text);
  };
  process.once('exit', flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}
