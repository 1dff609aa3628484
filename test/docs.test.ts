import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { ACTIONS } from '../functions/core/config/types';
import { OPERATIONS } from '../functions/core/operations/table';

/**
 * The documentation stays in step with the code: every link in README.md, CONTRIBUTING.md and docs/ leads to
 * a file and heading that exist, every repository path they write in backticks exists, and every docs page a
 * code comment names exists. Files move; this is what tells which doc line still names the old place. The
 * authorization page's table of actions is checked against the actions and the operation table themselves.
 */

const ROOT = resolve(__dirname, '..');

/** Where code comments are read: the code folders, and the configuration files that carry `#` comments. */
const CODE_FOLDERS = ['functions', 'lib', 'bin', 'scripts', 'bench', 'test'];
const CODE_EXTENSIONS = /\.(ts|js|mjs|cjs)$/;
const HASH_COMMENTED_FILES = ['wrangler.toml', 'proxy.toml', 'local/proxy.toml', '.ci/run'];
/** Vendored data and generated snapshots, not code anyone writes comments in. */
const NOT_CODE = ['test/fixtures', 'test/cdk/__snapshots__'];

const toPosix = (path: string): string => path.split(sep).join('/');
const fromRoot = (path: string): string => toPosix(relative(ROOT, path));

// ---------------------------------------------------------------------------------------------------------
// Markdown, as GitHub reads it

/** One line of a markdown file with its fenced code blocks blanked, so nothing inside a fence counts. */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return '';
    }
    return line;
  });
}

const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text lower-cased, every character that is not
 * a letter, mark, number, connector, space or hyphen removed, spaces turned into hyphens.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(CODE_SPAN, '$2')
    .replace(/<[^>]+>/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown file offers: its headings' slugs (repeats numbered as GitHub does) and `<a id>`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

interface Mention {
  readonly line: number;
  readonly text: string;
}

/** Link targets outside code: inline links and images, and reference definitions. */
export function linksOf(markdown: string): Mention[] {
  const links: Mention[] = [];
  proseLines(markdown).forEach((raw, i) => {
    const line = raw.replace(CODE_SPAN, (span) => ' '.repeat(span.length));
    for (const m of line.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, text: m[1] });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/.exec(line);
    if (definition) links.push({ line: i + 1, text: definition[1] });
  });
  return links;
}

/** The contents of inline code spans outside fenced blocks. */
export function codeSpansOf(markdown: string): Mention[] {
  const spans: Mention[] = [];
  proseLines(markdown).forEach((line, i) => {
    for (const m of line.matchAll(CODE_SPAN)) spans.push({ line: i + 1, text: m[2].trim() });
  });
  return spans;
}

// ---------------------------------------------------------------------------------------------------------
// Repository paths

/** The repository's top-level folders: every folder at the root except .git and what .gitignore leaves out. */
function topLevelFolders(): Set<string> {
  const ignored = readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[^#/*][^/*]*\/$/.test(l))
    .map((l) => l.slice(0, -1));
  const folders = readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== '.git' && e.name !== 'node_modules' && !ignored.includes(e.name))
    .map((e) => e.name);
  return new Set(folders);
}
const TOP_LEVEL = topLevelFolders();

/**
 * A code span that is a repository path: no spaces, at least one `/`, and its first segment one of the
 * repository's top-level folders. Such a path may be a glob (`*`), may hold alternatives (`{md,json}`) and
 * placeholders (`<type>`, matching like `*`).
 */
export function isRepoPath(text: string): boolean {
  if (!/^[\w.@{},*<>-]+(\/[\w.@{},*<>-]*)+$/.test(text)) return false;
  return TOP_LEVEL.has(text.split('/')[0]);
}

function expandAlternatives(pattern: string): string[] {
  const m = /\{([^{}]*)\}/.exec(pattern);
  if (!m) return [pattern];
  return m[1].split(',').flatMap((alt) => expandAlternatives(pattern.slice(0, m.index) + alt + pattern.slice(m.index + m[0].length)));
}

function segmentMatcher(segment: string): RegExp {
  const source = segment
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${source}$`);
}

/** Whether a repository path (relative to the root, `/`-separated, maybe a glob) names at least one file or folder. */
export function repoPathExists(path: string): boolean {
  return expandAlternatives(path.replace(/<[^>]+>/g, '*')).some((pattern) => {
    const folder = pattern.endsWith('/');
    const segments = pattern.replace(/\/$/, '').split('/');
    const walk = (dir: string, i: number): boolean => {
      if (i === segments.length) return !folder || statSync(dir).isDirectory();
      const segment = segments[i];
      if (!segment.includes('*')) {
        const next = join(dir, segment);
        return existsSync(next) && (i === segments.length - 1 || statSync(next).isDirectory()) && walk(next, i + 1);
      }
      if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
      const matcher = segmentMatcher(segment);
      return readdirSync(dir).some((name) => matcher.test(name) && walk(join(dir, name), i + 1));
    };
    return walk(ROOT, 0);
  });
}

// ---------------------------------------------------------------------------------------------------------
// The checks: each returns one message per problem, naming the file and line that holds it

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(absolute: string): Set<string> {
  let anchors = anchorCache.get(absolute);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(absolute, 'utf8'));
    anchorCache.set(absolute, anchors);
  }
  return anchors;
}

/**
 * Whether `target` (a path relative to `fromDir`, or to the root when it starts with `/`, with an optional
 * `#anchor`) leads somewhere; the reason it does not, otherwise. `own` is the anchors of the file holding
 * the link, for `#anchor` alone.
 */
function brokenTarget(target: string, fromDir: string, own: Set<string>): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  if (pathPart === '') return anchor === undefined || own.has(anchor) ? undefined : `#${anchor} is not a heading of this file`;
  const absolute = pathPart.startsWith('/') ? join(ROOT, pathPart) : resolve(fromDir, pathPart);
  if (!absolute.startsWith(ROOT)) return `${pathPart} leads out of the repository`;
  if (!existsSync(absolute)) return `${fromRoot(absolute)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!absolute.endsWith('.md')) return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : `#${anchor} is not a line of ${fromRoot(absolute)}`;
  return anchorsOfFile(absolute).has(anchor) ? undefined : `${fromRoot(absolute)} has no heading #${anchor}`;
}

/** Broken links of one markdown file (`file` relative to the root). */
export function linkProblems(file: string, markdown: string): string[] {
  const own = anchorsOf(markdown);
  const fromDir = dirname(join(ROOT, file));
  return linksOf(markdown)
    .filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.text))
    .flatMap((link) => {
      const broken = brokenTarget(link.text, fromDir, own);
      return broken === undefined ? [] : [`${file}:${link.line} links ${link.text}, but ${broken}`];
    });
}

/** Repository paths in backticks that name nothing. */
export function pathProblems(file: string, markdown: string): string[] {
  return codeSpansOf(markdown)
    .filter((span) => isRepoPath(span.text) && !repoPathExists(span.text))
    .map((span) => `${file}:${span.line} names \`${span.text}\`, which does not exist`);
}

/** The comments of a TypeScript or JavaScript file, each with the offset it starts at. */
function scriptComments(file: string, text: string): { pos: number; text: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const comments: { pos: number; text: string }[] = [];
  // Every comment is in the leading trivia of some token (at worst the end of file): visit them all.
  const visit = (node: ts.Node): void => {
    if (ts.isJSDoc(node)) return;
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push({ pos: range.pos, text: text.slice(range.pos, range.end) });
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return comments;
}

/** The `#` comments of a configuration or shell file. */
function hashComments(text: string): { pos: number; text: string }[] {
  const comments: { pos: number; text: string }[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const at = /(^|\s)#/.exec(line);
    if (at) comments.push({ pos: offset + at.index, text: line.slice(at.index) });
    offset += line.length + 1;
  }
  return comments;
}

/** Docs named in comments that do not exist: `docs/….md` pages and their anchors, and sections of README.md. */
export function commentProblems(file: string, text: string): string[] {
  const comments = CODE_EXTENSIONS.test(file) ? scriptComments(file, text) : hashComments(text);
  const lineAt = (pos: number): number => text.slice(0, pos).split('\n').length;
  const problems: string[] = [];
  for (const comment of comments) {
    for (const m of comment.text.matchAll(/(?<![\w./-])(docs\/[\w./-]*?\.md)(?:#([\w-]+))?/g)) {
      const broken = brokenTarget(m[2] === undefined ? m[1] : `${m[1]}#${m[2]}`, ROOT, new Set());
      if (broken !== undefined) problems.push(`${file}:${lineAt(comment.pos + m.index)}: a comment names ${m[0]}, but ${broken}`);
    }
    for (const m of comment.text.matchAll(/(?<![\w./-])README(\.md)?(?:#([\w-]+))?(?![\w-])/g)) {
      if (m[1] === undefined) {
        problems.push(`${file}:${lineAt(comment.pos + m.index)}: a comment names a README section; name the page in docs/ (and its #heading) instead`);
        continue;
      }
      const broken = brokenTarget(m[2] === undefined ? 'README.md' : `README.md#${m[2]}`, ROOT, new Set());
      if (broken !== undefined) problems.push(`${file}:${lineAt(comment.pos + m.index)}: a comment names ${m[0]}, but ${broken}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------
// The files

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (NOT_CODE.includes(path)) return [];
    if (entry.isDirectory()) return filesUnder(path, keep);
    return keep(path) ? [path] : [];
  });
}

const DOCS = ['README.md', 'CONTRIBUTING.md', ...filesUnder('docs', (p) => p.endsWith('.md'))];
const CODE = [...CODE_FOLDERS.flatMap((d) => filesUnder(d, (p) => CODE_EXTENSIONS.test(p))), ...HASH_COMMENTED_FILES];
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

describe('GitHub heading anchors', () => {
  it.each([
    ['Deploying on AWS Lambda (Function URL)', 'deploying-on-aws-lambda-function-url'],
    ['`[path_mapping]` (optional)', 'path_mapping-optional'],
    ["Errors, in S3's terms", 'errors-in-s3s-terms'],
    ['Where the keys live, and rotating them', 'where-the-keys-live-and-rotating-them'],
    ['The `node:http` hop', 'the-nodehttp-hop'],
    ['0001. Hand-written signers — and why', '0001-hand-written-signers--and-why'],
    ['[STS](sts.md) and **GitHub Actions**', 'sts-and-github-actions'],
  ])('GIVEN the heading %j THEN its anchor is %j', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('GIVEN a repeated heading THEN the later ones are numbered, and a heading inside a fence is no heading', () => {
    const anchors = anchorsOf('# Notes\n## Notes\n```sh\n# not a heading\n```\n### Notes\n');
    expect([...anchors]).toEqual(['notes', 'notes-1', 'notes-2']);
  });
});

describe('What the docs test reads', () => {
  it('GIVEN links in prose, in code spans and in fences THEN only the prose links count', () => {
    const md = 'See [a](docs/a.md#x) and ![b](b.png).\n`[c](c.md)`\n```md\n[d](d.md)\n```\n[e]: e.md\n';
    expect(linksOf(md)).toEqual([{ line: 1, text: 'docs/a.md#x' }, { line: 1, text: 'b.png' }, { line: 6, text: 'e.md' }]);
  });

  it('GIVEN code spans THEN only those starting with a top-level folder of the repository are paths', () => {
    expect(isRepoPath('functions/core/routing.ts')).toBe(true);
    expect(isRepoPath('test/e2e/')).toBe(true);
    expect(isRepoPath('s3://public/hello.txt')).toBe(false);
    expect(isRepoPath('/.well-known/jwks.json')).toBe(false);
    expect(isRepoPath('dist/node-server.js')).toBe(false);
    expect(isRepoPath('aws s3 ls s3://acme/widgets/')).toBe(false);
  });

  it('GIVEN globs, alternatives and placeholders THEN a path exists when at least one file matches', () => {
    expect(repoPathExists('functions/runtime/node/*.ts')).toBe(true);
    expect(repoPathExists('bench/results/latest.{md,json}')).toBe(true);
    expect(repoPathExists('functions/core/backends/<type>.ts')).toBe(true);
    expect(repoPathExists('functions/runtime/nowhere-*.ts')).toBe(false);
    expect(repoPathExists('functions/core/routing.ts/')).toBe(false);
  });

  it('GIVEN a doc naming what does not exist THEN each problem names the doc line and the missing path', () => {
    const md = '# Title\n[gone](gone.md), [anchor](#nowhere), [ok](#title)\n\nCode: `functions/core/gone.ts`.\n[heading](../README.md#no-such-heading)\n';
    expect([...linkProblems('docs/example.md', md), ...pathProblems('docs/example.md', md)]).toEqual([
      'docs/example.md:2 links gone.md, but docs/gone.md does not exist',
      'docs/example.md:2 links #nowhere, but #nowhere is not a heading of this file',
      'docs/example.md:5 links ../README.md#no-such-heading, but README.md has no heading #no-such-heading',
      'docs/example.md:4 names `functions/core/gone.ts`, which does not exist',
    ]);
  });

  it('GIVEN code whose comments name missing docs THEN each is reported with its line, and strings and URLs are not comments', () => {
    const code = [
      "const page = 'docs/nowhere.md';",
      '/** See docs/nowhere.md and https://example.com/docs/elsewhere.md. */',
      'function f(): void {',
      '  // the README, Performance',
      '}',
      '// docs/configuration.md#no-such-heading',
    ].join('\n');
    expect(commentProblems('functions/example.ts', code)).toEqual([
      'functions/example.ts:2: a comment names docs/nowhere.md, but docs/nowhere.md does not exist',
      'functions/example.ts:4: a comment names a README section; name the page in docs/ (and its #heading) instead',
      'functions/example.ts:6: a comment names docs/configuration.md#no-such-heading, but docs/configuration.md has no heading #no-such-heading',
    ]);
    expect(commentProblems('wrangler.toml', 'name = "x" # docs/nowhere.md\n')).toEqual([
      'wrangler.toml:1: a comment names docs/nowhere.md, but docs/nowhere.md does not exist',
    ]);
  });
});

describe('The documentation', () => {
  it('reads the README, CONTRIBUTING and every page in docs/', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/configuration.md', 'docs/adr/0001-hand-written-signers.md']));
  });

  it('links only files and headings that exist', () => {
    expect(DOCS.flatMap((file) => linkProblems(file, read(file)))).toEqual([]);
  });

  it('names in backticks only repository paths that exist', () => {
    expect(DOCS.flatMap((file) => pathProblems(file, read(file)))).toEqual([]);
  });

  it('links every page in docs/ from the README', () => {
    const linked = new Set(linksOf(read('README.md')).map((link) => posix.normalize(link.text.split('#')[0])));
    expect(DOCS.filter((file) => file.startsWith('docs/') && !linked.has(file))).toEqual([]);
  });

  it('is named in code comments only where it exists', () => {
    expect(CODE.length).toBeGreaterThan(100);
    expect(CODE.flatMap((file) => commentProblems(file, read(file)))).toEqual([]);
  });
});

describe('docs/authorization.md', () => {
  const page = read('docs/authorization.md');
  const section = page.slice(page.indexOf('\n## Actions\n'), page.indexOf('\n### ', page.indexOf('\n## Actions\n')));
  /** The rows of the Actions table: each action (its first cell) and the rest of its row. */
  const table = section.split('\n').flatMap((line): Array<[string, string]> => {
    const row = /^\| `([a-z_]+)` \|(.*)\|$/.exec(line);
    return row ? [[row[1], row[2]]] : [];
  });
  const rows = new Map(table);

  it('lists every action of ACTIONS once, each with the AWS permission it mirrors', () => {
    expect(table.map(([action]) => action).sort()).toEqual([...ACTIONS].sort());
    expect(table.filter(([, rest]) => !/`s3:\w+`/.test(rest.split('|').pop() ?? '')).map(([action]) => action)).toEqual([]);
  });

  it('names every operation in the row of each action its row of the operation table may ask for', () => {
    const missing: string[] = [];
    for (const [name, { access }] of Object.entries(OPERATIONS)) {
      if (typeof access === 'string') {
        if (!new RegExp(`\\b${name}\\b`).test(page)) missing.push(`${name} is not named`);
        continue;
      }
      const actions = [access.action, access.versioned?.action, access.versioned?.also, ...(access.extras ?? []).map((extra) => extra.action)];
      for (const action of new Set(actions.filter((a) => a !== undefined))) {
        if (!new RegExp(`\\b${name}\\b`).test(rows.get(action) ?? '')) missing.push(`the row of ${action} does not name ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
