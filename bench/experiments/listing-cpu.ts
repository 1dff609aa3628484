/**
 * The CPU of a listing page inside the gateway's core, without sockets: a 1,000-key page read from 64 KiB
 * chunks, then written for the client and turned into bytes (renderListing). The bench's ListObjects rows
 * measure the whole exchange on a noisy machine; this isolates the part the gateway's own code decides, so a
 * change to the reader or the writer shows in microseconds.
 *
 *   npx tsx bench/experiments/listing-cpu.ts [rounds] [s3|azure|azure-parser|s3-parts]
 *
 * `s3`: an RGW-shaped page through readS3ListingBody. `azure`: a List Blobs page in the form Azure writes it
 * through readBlobListBody; `azure-parser` reads the same page the way the gateway did before its scanner (the
 * whole document, then the general parser), for an A/B in one process. `s3-parts`: the S3 page's reading and
 its writing timed apart.
 */
import { parseBlobList, readBlobListBody } from '../../functions/core/backends/azure/listing';
import { toListPage, type BackendListPage } from '../../functions/core/listing/paging';
import { readS3ListingBody } from '../../functions/core/listing/s3-page';
import type { ListPage, ListParams } from '../../functions/core/backends/store';
import type { RequestContext } from '../../functions/core/context';
import { renderListing } from '../../functions/core/listing/xml';
import { backendDocument } from '../../functions/core/streams';

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

/**
 * A page as Azure writes it (its documentation's form, API version 2021-12-02): every property of every blob,
 * empty ones self-closed, Last-Modified a second apart.
 */
function azurePage(): Uint8Array {
  let xml = '<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="https://bench.blob.core.windows.net/" ContainerName="bench"><Prefix>tenant/list/</Prefix><MaxResults>1000</MaxResults><Blobs>';
  for (let i = 0; i < KEYS; i++) {
    const time = `Fri, 27 Nov 2026 1${Math.floor(i / 3600)}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} GMT`;
    xml +=
      `<Blob><Name>tenant/list/k-${String(i).padStart(4, '0')}</Name><Properties><Creation-Time>${time}</Creation-Time><Last-Modified>${time}</Last-Modified>` +
      `<Etag>0x8DD0F1A2B3C${String(i).padStart(4, '0')}</Etag><Content-Length>1</Content-Length><Content-Type>application/octet-stream</Content-Type><Content-Encoding /><Content-Language /><Content-CRC64 />` +
      '<Content-MD5>xMpCOKC5I4INzFCab3WEmw==</Content-MD5><Cache-Control /><Content-Disposition /><BlobType>BlockBlob</BlobType><AccessTier>Hot</AccessTier><AccessTierInferred>true</AccessTierInferred>' +
      '<LeaseStatus>unlocked</LeaseStatus><LeaseState>available</LeaseState><ServerEncrypted>true</ServerEncrypted></Properties><OrMetadata /></Blob>';
  }
  return new TextEncoder().encode(xml + '</Blobs><NextMarker /></EnumerationResults>');
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

type Store = 's3' | 'azure' | 'azure-parser';
type Mode = Store | 's3-parts';

/** The page as the store's reader gives it to the listing (an Azure page through the same merge the store does). */
async function readPage(store: Store, bytes: Uint8Array): Promise<ListPage | undefined> {
  if (store === 's3') return readS3ListingBody(chunked(bytes), 'tenant/');
  const page: BackendListPage | undefined =
    store === 'azure' ? await readBlobListBody(chunked(bytes), 'tenant/') : parseBlobList(await backendDocument(chunked(bytes)), 'tenant/');
  return page === undefined ? undefined : toListPage(PARAMS, page.items, undefined);
}

async function onePage(store: Store, bytes: Uint8Array): Promise<number> {
  const page = await readPage(store, bytes);
  if (page === undefined || page.contents.length !== KEYS) throw new Error('the page was not read');
  const body = renderListing(CTX, 'bench', 2, PARAMS, page).body;
  return body instanceof Uint8Array ? body.byteLength : String(body).length;
}

/** CPU per call of `work` (µs) in `rounds` rounds of 300 calls after 200 to warm up, sorted. */
async function cpuPerCall(rounds: number, work: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await work();
  const perCall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const calls = 300;
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await work();
    const used = process.cpuUsage(start);
    perCall.push((used.user + used.system) / calls);
  }
  return perCall.sort((a, b) => a - b);
}

function report(label: string, perCall: readonly number[]): void {
  console.log(`${label}: CPU per page (µs), rounds sorted: ${perCall.map((v) => v.toFixed(0)).join(' ')}; median ${perCall[perCall.length >> 1].toFixed(0)}`);
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const mode = (process.argv[3] ?? 's3') as Mode;
  if (!['s3', 'azure', 'azure-parser', 's3-parts'].includes(mode)) throw new Error(`unknown mode ${mode}: s3, azure, azure-parser or s3-parts`);
  const bytes = mode === 's3' || mode === 's3-parts' ? rgwPage() : azurePage();
  const size = `${(bytes.length / 1024).toFixed(0)} KiB page, ${KEYS} keys`;
  if (mode !== 's3-parts') return report(`${mode}: ${size}`, await cpuPerCall(rounds, () => onePage(mode, bytes)));
  const page = await readPage('s3', bytes);
  if (page === undefined) throw new Error('the page was not read');
  report(`s3 reading: ${size}`, await cpuPerCall(rounds, () => readPage('s3', bytes)));
  report(`s3 writing: ${size}`, await cpuPerCall(rounds, async () => renderListing(CTX, 'bench', 2, PARAMS, page)));
}

void main();
