import { hmac } from '../../bytes';
import { encodeKey } from '../../keys';
import { toBase64 } from '../../bytes';

/**
 * Service SAS for one blob, signed with the account key (signed version 2020-12-06 and later):
 * https://learn.microsoft.com/rest/api/storageservices/create-service-sas
 */

/** Response header overrides a read SAS may carry, by S3's `response-*` query names. */
export const SAS_RESPONSE_OVERRIDES = {
  'response-cache-control': 'rscc',
  'response-content-disposition': 'rscd',
  'response-content-encoding': 'rsce',
  'response-content-language': 'rscl',
  'response-content-type': 'rsct',
} as const;

export interface BlobSas {
  readonly account: string;
  readonly container: string;
  /** The blob name, decoded. */
  readonly blob: string;
  /** Permission letters in Azure's order (`r`, `cw`, `d`). */
  readonly permissions: string;
  /** Expiry, ms since the epoch. */
  readonly expiry: number;
  readonly version: string;
  /** `rscc`, `rscd`, `rsce`, `rscl`, `rsct` values. */
  readonly overrides?: Readonly<Partial<Record<'rscc' | 'rscd' | 'rsce' | 'rscl' | 'rsct', string>>>;
}

/** `2026-01-02T03:04:05Z`: Azure's SAS times carry no milliseconds. */
export function sasTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function blobSasStringToSign(sas: BlobSas): string {
  const o = sas.overrides ?? {};
  return [
    sas.permissions,
    '', // signedStart: valid from now
    sasTime(sas.expiry),
    `/blob/${sas.account}/${sas.container}/${sas.blob}`,
    '', // signedIdentifier (stored access policy)
    '', // signedIP
    '', // signedProtocol
    sas.version,
    'b', // signedResource
    '', // signedSnapshotTime
    '', // signedEncryptionScope
    o.rscc ?? '',
    o.rscd ?? '',
    o.rsce ?? '',
    o.rscl ?? '',
    o.rsct ?? '',
  ].join('\n');
}

/** The SAS query string (without `?`). */
export async function blobSasQuery(sas: BlobSas, key: Uint8Array): Promise<string> {
  const signature = toBase64(await hmac(key, blobSasStringToSign(sas)));
  const params: [string, string][] = [
    ['sv', sas.version],
    ['sr', 'b'],
    ['sp', sas.permissions],
    ['se', sasTime(sas.expiry)],
  ];
  for (const [name, value] of Object.entries(sas.overrides ?? {})) if (value !== undefined) params.push([name, value]);
  params.push(['sig', signature]);
  return params.map(([name, value]) => `${name}=${encodeKey(value, false)}`).join('&');
}
