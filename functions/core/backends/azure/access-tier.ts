/** Azure access tiers as the S3 storage classes that behave alike (Archive must be rehydrated like Glacier). */
export function storageClassOf(tier: string | null | undefined): string {
  switch (tier?.toLowerCase()) {
    case 'cool':
    case 'cold':
      return 'STANDARD_IA';
    case 'archive':
      return 'GLACIER';
    default:
      return 'STANDARD';
  }
}
