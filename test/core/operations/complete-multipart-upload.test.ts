import { checkPartOrder, parseCompleteRequest } from '../../../functions/core/operations/complete-multipart-upload';

const body = (parts: string): Uint8Array => new TextEncoder().encode(`<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`);
const partXml = (n: number | string, etag = '"e"'): string => `<Part><PartNumber>${n}</PartNumber><ETag>${etag}</ETag></Part>`;

describe('CompleteMultipartUpload\'s part list', () => {
  it('GIVEN parts THEN their numbers and ETags in the client\'s order', () => {
    expect(parseCompleteRequest(body(partXml(1, '"a"') + partXml(3, 'b')))).toEqual([{ partNumber: 1, etag: '"a"' }, { partNumber: 3, etag: 'b' }]);
  });

  it.each([[''], [partXml(0)], [partXml(10001)], [partXml('x')], ['<Part><PartNumber>1</PartNumber></Part>']])('GIVEN %j THEN MalformedXML', (parts) => {
    expect(() => parseCompleteRequest(body(parts))).toThrow(expect.objectContaining({ code: 'MalformedXML' }));
  });

  it.each([[[2, 1]], [[1, 1]]])('GIVEN part numbers %j, not ascending THEN 400 InvalidPartOrder', (numbers) => {
    expect(() => checkPartOrder(numbers.map((partNumber) => ({ partNumber, etag: 'e' })))).toThrow(expect.objectContaining({ code: 'InvalidPartOrder', status: 400 }));
  });

  it('GIVEN ascending part numbers with gaps THEN they pass', () => {
    expect(() => checkPartOrder([1, 3, 10000].map((partNumber) => ({ partNumber, etag: 'e' })))).not.toThrow();
  });
});
