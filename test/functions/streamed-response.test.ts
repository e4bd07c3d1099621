// With `enableHttpStream` (functions/index.ts), the Functions worker wraps the handler's answer in
// @azure/functions' HttpResponse and writes `response.body` chunk by chunk to the host's HTTP proxy
// (sendProxyResponse in @azure/functions 4.x; https://aka.ms/AzFuncNodeHttpStreams). The host
// cannot run here, so this checks the library end of it: our streamed (and compressed) bodies go
// through HttpResponse intact, the compressed one with its Content-Encoding.
import { text } from 'node:stream/consumers';
import zlib from 'node:zlib';
import azf from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { compressResponse } from '../../shared/http/compression.js';
import { okStream } from '../../shared/http/stream-body.js';

async function* rows() {
  for (let i = 0; i < 3000; i++) yield { id: i, name: `row-${i}` };
}
const expected = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `row-${i}` })));

describe('streamed answers through @azure/functions HttpResponse', () => {
  it('carries a streamed JSON array unchanged', async () => {
    const res = new azf.HttpResponse(okStream(rows()));
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(expected);
  });

  it('carries a gzip-compressed stream with its Content-Encoding and Vary', async () => {
    const init = await compressResponse(okStream(rows()), 'gzip', 1024);
    const res = new azf.HttpResponse(init);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(await text(zlib.createGunzip().end(bytes))).toBe(expected);
  });
});
