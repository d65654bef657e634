import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { PriceRecord } from '@app/amm';
import {
  MAX_PRICE_BATCH,
  PRICE_ERRORS,
  PriceBatchQueryDto,
  PriceEnvelopeDto,
  PriceListEnvelopeDto,
  PriceMintParamDto,
  createPriceValidationPipe,
  parseMintList,
} from './price.dto';
import { ApiErrorTexts } from '../http/api-errors';
import { PriceService } from './price.service';

const pricePipe = createPriceValidationPipe();

/** GET /api/v1/price/{mint} and GET /api/v1/price?mints= (API.md §4.4, §4.5): lookups of maintained records. */
@ApiTags('price')
@Controller('api/v1')
export class PriceController {
  constructor(private readonly prices: PriceService) {}

  @Get('price')
  @ApiOperation({
    summary: `Spot USD prices of up to ${MAX_PRICE_BATCH} mints`,
    description:
      'Display prices derived from live pool state only (no external feed); an unknown mint gets price 0, slot 0, updatedAt 0. ' +
      `Errors (400, envelope {success:false, error}), checked in this order: "${PRICE_ERRORS.missingMints}" (mints absent or empty); ` +
      `"${PRICE_ERRORS.repeatedMints}"; "invalid mints: <n> mints given, at most ${MAX_PRICE_BATCH}" (entries as sent, duplicates ` +
      'included); "invalid mint: \\"<entry>\\"" naming the first entry that is not a base58 public key (an empty entry, e.g. from a ' +
      'trailing comma, is named as ""). A mint listed twice is answered once.',
  })
  @ApiOkResponse({ type: PriceListEnvelopeDto })
  @ApiErrorTexts({ 400: [PRICE_ERRORS.missingMints, PRICE_ERRORS.repeatedMints, PRICE_ERRORS.tooMany(NaN).replace('NaN', '<n>'), 'invalid mint: "<entry>"'] })
  batch(@Query(pricePipe) q: PriceBatchQueryDto): { success: true; data: { prices: PriceRecord[] } } {
    const parsed = parseMintList(q.mints);
    // the pipe has validated q.mints with the same parser
    const mints = 'mints' in parsed ? parsed.mints : [];
    return { success: true, data: { prices: this.prices.prices(mints) } };
  }

  @Get('price/:mint')
  @ApiOperation({
    summary: 'Spot USD price of one mint',
    description:
      'Display price derived from live pool state only; an unknown mint gets price 0, slot 0, updatedAt 0. ' +
      'Error (400): "invalid mint: \\"<value>\\"" when the mint is not a base58 public key.',
  })
  @ApiParam({ name: 'mint', description: 'token mint (base58 public key)', example: 'So11111111111111111111111111111111111111112' })
  @ApiOkResponse({ type: PriceEnvelopeDto })
  @ApiErrorTexts({ 400: ['invalid mint: "<value>"'] })
  one(@Param(pricePipe) p: PriceMintParamDto): { success: true; data: PriceRecord } {
    return { success: true, data: this.prices.price(p.mint) };
  }
}
