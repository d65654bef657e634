/**
 * OpenAPI schemas of the live stream's messages (WS /api/v1/stream, API.md §4.7 and §6): JSON text
 * frames, documentation only (apps/stream/src/protocol.ts parses the client's, the hub writes the
 * server's). They are components of the OpenAPI document; its /api/v1/stream path names them.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class StreamPairDto {
  @ApiProperty({ description: 'input mint' }) in!: string;
  @ApiProperty({ description: 'output mint' }) out!: string;
  @ApiProperty({ description: 'smallest units, positive integer up to u64' }) amount!: string;
  @ApiProperty({ description: 'true: ExactIn; false: ExactOut' }) exactIn!: boolean;
}

export class StreamClientMessageDto {
  @ApiProperty({ enum: ['subscribe', 'unsubscribe'] }) op!: string;
  @ApiProperty({ type: [StreamPairDto], description: 'one or more pairs; invalid and duplicate pairs are skipped (at most 256 per connection)' }) pairs!: StreamPairDto[];
}

export class StreamQuoteMessageDto {
  @ApiProperty({ enum: ['quote'] }) type!: string;
  @ApiProperty() in!: string;
  @ApiProperty() out!: string;
  @ApiProperty({ description: 'the subscribed amount' }) amount!: string;
  @ApiProperty() exactIn!: boolean;
  @ApiProperty({ description: 'input of the quote (for ExactOut: what the subscribed output costs)' }) amountIn!: string;
  @ApiProperty({ description: 'output of the quote, smallest units' }) amountOut!: string;
  @ApiProperty({ type: 'integer' }) priceImpactBps!: number;
  @ApiProperty({ type: 'integer', description: '1 = direct' }) hops!: number;
  @ApiProperty({ type: 'integer', description: 'chain slot the quote was computed at' }) slot!: number;
}

export class StreamAckMessageDto {
  @ApiProperty({ enum: ['subscribed', 'unsubscribed'] }) type!: string;
  @ApiProperty({ type: 'integer', description: 'pairs accepted (subscribed) or removed (unsubscribed)' }) count!: number;
}

export class StreamErrorMessageDto {
  @ApiProperty({ enum: ['error'] }) type!: string;
  @ApiProperty({ description: 'e.g. "invalid json", "unknown op", the subscription limit, or why a subscribed pair cannot be quoted now ("no route found")' }) message!: string;
  @ApiPropertyOptional({ description: 'with a pair that cannot be quoted now: its input mint' }) in?: string;
  @ApiPropertyOptional() out?: string;
  @ApiPropertyOptional() amount?: string;
  @ApiPropertyOptional() exactIn?: boolean;
  @ApiPropertyOptional({ type: 'integer' }) slot?: number;
}

export const STREAM_MESSAGE_MODELS = [StreamPairDto, StreamClientMessageDto, StreamQuoteMessageDto, StreamAckMessageDto, StreamErrorMessageDto];
