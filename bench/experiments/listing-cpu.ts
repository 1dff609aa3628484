/**
 * The CPU of a listing page inside the gateway's core, without sockets: an RGW-shaped 1,000-key page read
 * from 64 KiB chunks (readS3ListingBody), then written for the client and turned into bytes (renderListing).
 * The bench's ListObjects rows measure the whole exchange on a noisy machine; this isolates the part the
 * gateway's own code decides, so a change to the reader or the writer shows in microseconds.
 *
 *   npx tsx bench/experiments/listing-cpu.ts [rounds]
 */
import { readS3ListingBody } from '../../functions/core/backends/s3-listing';
import type { ListParams } from '../../functions/core/backends/store';
import type { RequestContext } from '../../functions/core/context';
import { renderListing } from '../../functions/core/operations/list-xml';

const KEYS = 1000;
const CHUNK = 64 * 1024;

/** A page as RGW writes it for `encoding-type=url` with `fetch-owner`: one line per entry, Owner and Type included. */
function rgwPage(): Uint8Array {
  let xml = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bench</Name><Prefix>list%2F</Prefix><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated><KeyCount>1000</KeyCount>';
  for (let i = 0; i < KEYS; i++) {
    xml +=
      `<Contents><Key>tenant%2Flist%2Fk-${String(i).padStart(4, '0')}</Key><LastModified>2026-11-27T10:00:00.000Z</LastModified>` +
      '<ETag>&quot;9dd4e461268c8034f5c8564e155c67a6&quot;</ETag><Size>1</Size><Owner><ID>bench-user</ID><DisplayName>bench-user</DisplayName></Owner>' +
      '<StorageClass>STANDARD</StorageClass><Type>Normal</Type></Contents>';
  }
  return new TextEncoder().encode(xml + '</ListBucketResult>');
}

function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      // A copy per chunk, as a socket read hands each chunk in a fresh buffer of its own.
      controller.enqueue(bytes.slice(at, at + CHUNK));
      at += CHUNK;
    },
  });
}

const PARAMS: ListParams = { prefix: 'list/', maxKeys: 1000, fetchOwner: false } as ListParams;
const CTX = { requestId: 'REQ', query: { get: (name: string) => (name === 'encoding-type' ? 'url' : undefined) } } as unknown as RequestContext;

async function onePage(bytes: Uint8Array): Promise<number> {
  const page = await readS3ListingBody(chunked(bytes), 'tenant/');
  if (page === undefined || page.contents.length !== KEYS) throw new Error('the page was not read');
  const body = renderListing(CTX, 'bench', 2, PARAMS, page).body;
  return body instanceof Uint8Array ? body.byteLength : String(body).length;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const bytes = rgwPage();
  for (let i = 0; i < 200; i++) await onePage(bytes);
  const perPage: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const pages = 300;
    const start = process.cpuUsage();
    for (let i = 0; i < pages; i++) await onePage(bytes);
    const used = process.cpuUsage(start);
    perPage.push((used.user + used.system) / pages);
  }
  perPage.sort((a, b) => a - b);
  console.log(`${(bytes.length / 1024).toFixed(0)} KiB page, ${KEYS} keys: CPU per page (µs), rounds sorted: ${perPage.map((v) => v.toFixed(0)).join(' ')}; median ${perPage[perPage.length >> 1].toFixed(0)}`);
}

void main();
