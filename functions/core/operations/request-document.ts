import { S3Error } from '../errors';
import { childOf, parseXml, type ParsedXml } from '../xml';

/** S3's answer to a request document it cannot read, or one outside the operation's limits. */
export function malformedXml(): S3Error {
  return new S3Error('MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema');
}

/**
 * The root element of an XML document a client sent (DeleteObjects, CompleteMultipartUpload): valid UTF-8,
 * parsed by the one hardened parser, named `root`; anything else is MalformedXML.
 */
export function requestDocument(body: Uint8Array, root: string): Exclude<ParsedXml, string> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw malformedXml();
  }
  const element = childOf(parseXml(text), root);
  if (element === undefined || typeof element === 'string') throw malformedXml();
  return element;
}
