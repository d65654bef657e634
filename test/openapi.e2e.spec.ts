/**
 * The served OpenAPI document against real answers: every endpoint's answers (successes and
 * errors) conform to the schema the document gives for their status, with no undocumented field;
 * every error status an endpoint can send is documented with its texts; the stream's messages are
 * components; the stale descriptions are gone.
 */
import 'reflect-metadata';
import * as net from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { Keypair } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import type { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS } from '@app/solana';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { responseSchema, validateAgainst } from './support/openapi-validate';

describe('OpenAPI e2e: real answers against the served document', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let port: number;
  let doc: any;

  /** call, then check the answer against the schema of (method, documented path, status); a wrong method's 405 is documented on the path's operation (`docMethod`) */
  async function check(method: 'GET' | 'POST' | 'DELETE', url: string, documented: string, body?: unknown, expectStatus?: number, docMethod: string = method): Promise<any> {
    const res = await fetch(base + url, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = await res.json();
    if (expectStatus !== undefined) expect([url, res.status, json]).toEqual([url, expectStatus, expect.anything()]);
    const schema = responseSchema(doc, docMethod, documented, res.status);
    expect([method, documented, res.status, schema === undefined ? 'undocumented status' : 'documented']).toEqual([method, documented, res.status, 'documented']);
    expect([url, validateAgainst(doc, schema!, json)]).toEqual([url, []]);
    return json;
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('openapi-e2e-'));
    const market = new SimMarket({ seed: 8, pools: 60, tokens: 20, swapsPerSlot: 4 });
    await appendUpdates(log, market.genesis());
    for (let i = 0; i < 2; i++) await appendUpdates(log, market.step());
    ({ app, base, port } = await serveOn(RouterModule, dir));
    doc = await (await fetch(`${base}/api/docs-json`)).json();
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('quote: 200, and each error status', async () => {
    const q = (o: Record<string, string>): string => `/api/v1/quote?${new URLSearchParams(o).toString()}`;
    const ok = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000', swapMode: 'ExactIn' };
    await check('GET', q(ok), '/api/v1/quote', undefined, 200);
    await check('GET', q({ ...ok, amount: 'x' }), '/api/v1/quote', undefined, 400);
    await check('GET', q({ ...ok, surprise: '1' }), '/api/v1/quote', undefined, 400);
    await check('GET', q({ ...ok, outputMint: Keypair.generate().publicKey.toBase58() }), '/api/v1/quote', undefined, 404);
    await check('GET', q({ ...ok, outputMint: MINTS.SOL }), '/api/v1/quote', undefined, 400);
    await check('DELETE', q(ok), '/api/v1/quote', undefined, 405, 'GET');
  });

  it('swap (simulated and not) and instructions: 200 with every field documented, and their errors', async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    expect((await fetch(`${base}/api/v1/sim/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet, amount: '5000000000' }) })).status).toBe(200);
    const body = { userWallet: wallet, inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '100000000', swapMode: 'ExactIn', slippageBps: 100 };
    const simulated = await check('POST', '/api/v1/swap', '/api/v1/swap', body, 200);
    expect(simulated.data.simulation).toBeDefined();
    const skipped = await check('POST', '/api/v1/swap', '/api/v1/swap', { ...body, skipSimulation: true }, 200);
    expect(skipped.data.simulation).toBeUndefined();
    await check('POST', '/api/v1/swap', '/api/v1/swap', { ...body, swapMode: 'ExactOut', amount: '1000000' }, 200);
    const ins = await check('POST', '/api/v1/instructions', '/api/v1/instructions', body, 200);
    expect(ins.data.instructions.length).toBeGreaterThan(0);
    // a simulation that fails: a wallet with no funds
    await check('POST', '/api/v1/swap', '/api/v1/swap', { ...body, userWallet: Keypair.generate().publicKey.toBase58() }, 500);
    for (const p of ['/api/v1/swap', '/api/v1/instructions']) {
      await check('POST', p, p, { ...body, userWallet: 'nope' }, 400);
      await check('POST', p, p, { ...body, outputMint: Keypair.generate().publicKey.toBase58() }, 404);
      await check('POST', p, p, '{"userWallet":', 400);
      await check('POST', p, p, '['.repeat(100) + ']'.repeat(100), 400);
      await check('POST', p, p, JSON.stringify({ ...body, pad: 'x'.repeat(120_000) }), 413);
    }
  });

  it('price, tokens, markets, dexes, health and ready', async () => {
    await check('GET', `/api/v1/price/${MINTS.SOL}`, '/api/v1/price/{mint}', undefined, 200);
    await check('GET', '/api/v1/price/nope', '/api/v1/price/{mint}', undefined, 400);
    await check('GET', `/api/v1/price?mints=${MINTS.SOL},${MINTS.USDC}`, '/api/v1/price', undefined, 200);
    await check('GET', '/api/v1/price?mints=', '/api/v1/price', undefined, 400);
    await check('GET', '/api/v1/tokens', '/api/v1/tokens', undefined, 200);
    await check('GET', '/api/v1/tokens?limit=0', '/api/v1/tokens', undefined, 400);
    await check('GET', '/api/v1/markets', '/api/v1/markets', undefined, 200);
    await check('GET', `/api/v1/markets?mint=${MINTS.SOL}&routable=false&limit=2`, '/api/v1/markets', undefined, 200);
    await check('GET', '/api/v1/markets?program=nope', '/api/v1/markets', undefined, 400);
    await check('GET', '/api/v1/dexes', '/api/v1/dexes', undefined, 200);
    await check('GET', '/health', '/health', undefined, 200);
    await check('GET', '/ready', '/ready', undefined, 200);
  });

  it('a refusal before any route (headers over 16 KB) conforms to the 431 of the endpoint asked', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => s.write(`GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
      let t = '';
      s.setEncoding('utf8');
      s.on('data', (d: string) => (t += d));
      s.on('end', () => resolve(t));
      s.on('error', reject);
    });
    expect(text.startsWith('HTTP/1.1 431')).toBe(true);
    const schema = responseSchema(doc, 'GET', '/api/v1/tokens', 431)!;
    expect(validateAgainst(doc, schema, JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)))).toEqual([]);
  });

  it('every /api/v1 operation documents its answer schema and the shared refusals with their texts', () => {
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      if (!p.startsWith('/api/v1/') || p.startsWith('/api/v1/sim/') || p === '/api/v1/stream') continue;
      for (const [method, op] of Object.entries<any>(ops)) {
        expect([p, method, op.responses['200']?.content?.['application/json']?.schema === undefined ? 'no 200 schema' : 'ok']).toEqual([p, method, 'ok']);
        for (const status of ['400', '401', '403', '429', '431', '500']) {
          expect([p, method, status, op.responses[status]?.content?.['application/json']?.schema?.properties?.error === undefined ? 'missing' : 'ok']).toEqual([p, method, status, 'ok']);
        }
        if (method === 'post') expect(op.responses['413']).toBeDefined();
      }
    }
    const schemas = doc.components.schemas;
    for (const name of ['SwapResultDto', 'SimulationResultDto', 'InstructionsResultDto', 'RawInstructionDto', 'StreamClientMessageDto', 'StreamQuoteMessageDto', 'StreamAckMessageDto', 'StreamErrorMessageDto']) {
      expect([name, schemas[name] === undefined ? 'missing' : 'ok']).toEqual([name, 'ok']);
    }
    expect(doc.paths['/api/v1/stream'].get.responses['101']).toBeDefined();
    expect(schemas.PriceRecordDto.properties.updatedAt.description).toMatch(/appended to the log/);
    expect(schemas.PriceRecordDto.properties.updatedAt.description).not.toMatch(/wall clock/);
  });

  it('the stream messages the hub writes conform to their components', () => {
    const quote = { type: 'quote', in: MINTS.SOL, out: MINTS.USDC, amount: '1', exactIn: true, amountIn: '1', amountOut: '2', priceImpactBps: 0, hops: 1, slot: 5 };
    expect(validateAgainst(doc, { $ref: '#/components/schemas/StreamQuoteMessageDto' }, quote)).toEqual([]);
    expect(validateAgainst(doc, { $ref: '#/components/schemas/StreamQuoteMessageDto' }, { ...quote, extra: 1 })).not.toEqual([]);
    expect(validateAgainst(doc, { $ref: '#/components/schemas/StreamAckMessageDto' }, { type: 'subscribed', count: 2 })).toEqual([]);
    expect(validateAgainst(doc, { $ref: '#/components/schemas/StreamErrorMessageDto' }, { type: 'error', message: 'unknown op' })).toEqual([]);
  });
});
