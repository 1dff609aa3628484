import { XMLParser } from 'fast-xml-parser';

/**
 * XML in one place: a tiny builder for the documents the gateway writes, and one hardened parser for the
 * documents it reads (backend listings, DeleteObjects and multipart bodies).
 */

export type XmlValue = string | number | boolean | XmlNode | XmlNode[] | undefined | null;
export interface XmlNode {
  readonly [name: string]: XmlValue | XmlValue[];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
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
  if (Array.isArray(value)) return value.map((v) => element(name, v)).join('');
  if (typeof value === 'object') return `<${name}>${children(value)}</${name}>`;
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** A parsed element: text content, or child elements by name (repeated elements become arrays). */
export type ParsedXml = string | { readonly [name: string]: ParsedXml | ParsedXml[] };

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  // fast-xml-parser ties numeric references (&#34; as Go's encoding/xml writes ETags) to this option.
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/**
 * Parses untrusted XML. DOCTYPE declarations are refused outright, which rules out entity expansion
 * attacks; callers bound the size before parsing. Returns undefined for malformed documents.
 */
export function parseXml(text: string): Record<string, ParsedXml> | undefined {
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) return undefined;
  try {
    const doc: unknown = parser.parse(text, true);
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, ParsedXml>) : undefined;
  } catch {
    return undefined;
  }
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
