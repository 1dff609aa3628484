/**
 * XML in one place: a tiny builder for the documents the gateway writes, and one hardened parser for the
 * documents it reads (backend listings, DeleteObjects and multipart bodies).
 */

export type XmlValue = string | number | boolean | XmlNode | XmlNode[] | XmlSequence | undefined | null;
export interface XmlNode {
  readonly [name: string]: XmlValue | XmlValue[];
}

/**
 * Elements written in the order given, each under its own name, in place of the property that holds them:
 * for documents that interleave two kinds of element (ListObjectVersions' `Version` and `DeleteMarker`).
 */
export class XmlSequence {
  constructor(readonly elements: ReadonlyArray<readonly [name: string, value: XmlNode]>) {}
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;

export function escapeXml(text: string): string {
  // Most text has nothing to escape: a test allocates nothing, a replace builds a new string.
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]) : text;
}

/**
 * Serializes `{ Root: { A: 'x', B: [{ C: 1 }, { C: 2 }] } }` as elements; arrays repeat their element,
 * `undefined`/`null` are omitted. `xmlns` on the root is passed as the second argument.
 */
export function buildXml(root: string, body: XmlNode, xmlns?: string): string {
  const ns = xmlns ? ` xmlns="${escapeXml(xmlns)}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns}>${children(body)}</${root}>`;
}

function children(node: XmlNode): string {
  let out = '';
  for (const [name, value] of Object.entries(node)) {
    if (Array.isArray(value)) for (const item of value) out += element(name, item);
    else out += element(name, value);
  }
  return out;
}

function element(name: string, value: XmlValue | XmlValue[]): string {
  if (value === undefined || value === null) return '';
  if (value instanceof XmlSequence) return value.elements.map(([n, v]) => element(n, v)).join('');
  if (Array.isArray(value)) return value.map((v) => element(name, v)).join('');
  if (typeof value === 'object') return `<${name}>${children(value)}</${name}>`;
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** A parsed element: text content, or child elements by name (repeated elements become arrays). */
export type ParsedXml = string | { readonly [name: string]: ParsedXml | ParsedXml[] };

/**
 * Parses untrusted XML into elements and text. Purpose-built for the documents the gateway reads (S3, Azure
 * and STS bodies: elements, text, the predefined and numeric character references, CDATA, comments):
 * attributes are ignored; a DOCTYPE or entity declaration, an unknown entity, a stray `&`, mismatched or
 * unclosed tags, content outside the root and nesting deeper than 64 make the document malformed, which is
 * answered with undefined. Callers bound the size before parsing. A general-purpose parser took 24-30 ms
 * for a 1,000-key listing page; this takes about 1.
 *
 * An element with only text becomes that text (untrimmed, '' when empty); one with children becomes an
 * object of its children by name, repeated names becoming arrays.
 */
export function parseXml(text: string): Record<string, ParsedXml> | undefined {
  try {
    return scan(text);
  } catch (err) {
    if (err === MALFORMED) return undefined;
    throw err;
  }
}

const MALFORMED = new Error('malformed XML');
const MAX_DEPTH = 64;
const NAME = /^[A-Za-z_][\w.\-:]*/;

type Children = { [name: string]: ParsedXml | ParsedXml[] };

interface Frame {
  readonly name: string;
  children?: Children;
  text: string;
}

function fail(): never {
  throw MALFORMED;
}

function scan(xml: string): Record<string, ParsedXml> {
  const root: Frame = { name: '', text: '' };
  const stack: Frame[] = [root];
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const textEnd = lt < 0 ? xml.length : lt;
    if (textEnd > i) {
      const raw = xml.slice(i, textEnd);
      if (stack.length === 1) {
        if (raw.trim() !== '') fail();
      } else stack[stack.length - 1].text += raw.includes('&') ? decodeEntities(raw) : raw;
    }
    if (lt < 0) break;
    i = markup(xml, lt, stack);
  }
  if (stack.length !== 1 || root.children === undefined) fail();
  return root.children as Record<string, ParsedXml>;
}

/** Consumes the markup starting at `lt` (a tag, declaration, comment or CDATA); returns where text resumes. */
function markup(xml: string, lt: number, stack: Frame[]): number {
  const top = stack[stack.length - 1];
  if (xml.startsWith('<?', lt)) return after(xml, '?>', lt + 2);
  if (xml.startsWith('<!--', lt)) return after(xml, '-->', lt + 4);
  if (xml.startsWith('<![CDATA[', lt)) {
    if (stack.length === 1) fail();
    const end = after(xml, ']]>', lt + 9);
    top.text += xml.slice(lt + 9, end - 3);
    return end;
  }
  if (xml[lt + 1] === '!') fail(); // DOCTYPE and entity declarations: never expanded, never accepted
  const gt = tagEnd(xml, lt + 1);
  if (xml[lt + 1] === '/') {
    const closed = stack.pop();
    if (stack.length === 0 || closed?.name !== xml.slice(lt + 2, gt).trim()) fail();
    attach(stack[stack.length - 1], closed);
    return gt + 1;
  }
  const selfClosing = xml[gt - 1] === '/';
  const name = NAME.exec(xml.slice(lt + 1, selfClosing ? gt - 1 : gt))?.[0] ?? fail();
  if (stack.length === 1 && top.children !== undefined) fail(); // a second root element
  const frame: Frame = { name, text: '' };
  if (selfClosing) attach(top, frame);
  else if (stack.length > MAX_DEPTH) fail();
  else stack.push(frame);
  return gt + 1;
}

function after(xml: string, terminator: string, from: number): number {
  const at = xml.indexOf(terminator, from);
  if (at < 0) fail();
  return at + terminator.length;
}

/** The `>` closing a tag, skipping quoted attribute values (which may contain `>`). */
function tagEnd(xml: string, from: number): number {
  let quote = '';
  for (let i = from; i < xml.length; i++) {
    const c = xml[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
    else if (c === '<') fail();
  }
  return fail();
}

function attach(parent: Frame, child: Frame): void {
  const value: ParsedXml = child.children ?? child.text;
  if (child.children !== undefined && child.text.trim() !== '') child.children['#text'] = child.text;
  const children = (parent.children ??= Object.create(null) as Children);
  const existing = children[child.name];
  if (existing === undefined) children[child.name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else children[child.name] = [existing, value];
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Text with the predefined and numeric character references decoded; throws on any other `&` (an unknown
 * entity, a stray ampersand, a reference to a code point XML excludes), as parseXml refuses those.
 */
export function decodeEntities(raw: string): string {
  return raw.replace(/&([^;&]*);?/g, (match, body: string) => {
    if (!match.endsWith(';')) fail();
    const named = NAMED_ENTITIES[body];
    if (named !== undefined && Object.hasOwn(NAMED_ENTITIES, body)) return named;
    const code = /^#x([0-9a-fA-F]{1,6})$/.exec(body)?.[1] ?? /^#([0-9]{1,7})$/.exec(body)?.[1];
    if (code === undefined) fail();
    const point = body[1] === 'x' ? parseInt(code, 16) : parseInt(code, 10);
    if (point === 0 || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) fail();
    return String.fromCodePoint(point);
  });
}

/** Child text of a parsed element, or undefined. */
export function textOf(node: ParsedXml | ParsedXml[] | undefined): string | undefined {
  if (node === undefined) return undefined;
  const one = Array.isArray(node) ? node[0] : node;
  if (typeof one === 'string') return one;
  return one === undefined ? undefined : '';
}

/** Children named `name` as an array (one element or many). */
export function listOf(node: ParsedXml | undefined, name: string): ParsedXml[] {
  if (node === undefined || typeof node === 'string') return [];
  const value = node[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The single child element named `name`. */
export function childOf(node: ParsedXml | undefined, name: string): ParsedXml | undefined {
  return listOf(node, name)[0];
}
