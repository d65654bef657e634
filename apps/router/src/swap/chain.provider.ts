import type { Provider } from '@nestjs/common';
import { APP_CONFIG } from '../../../../libs/config/src/config.module';
import type { AppConfig } from '../../../../libs/config/src/config';
import { ProjectionService } from '../projection/projection.service';
import { CHAIN_GATEWAY, type ChainGateway } from '../chain/chain-gateway';
import { RpcChainGateway } from '../chain/rpc.gateway';
import { SimChainGateway } from '../chain/sim.gateway';

/** CHAIN_GATEWAY=sim (default) or rpc */
export const chainGatewayProvider: Provider = {
  provide: CHAIN_GATEWAY,
  inject: [APP_CONFIG, ProjectionService],
  useFactory: (config: AppConfig, projections: ProjectionService): ChainGateway =>
    config.chainGateway === 'rpc' ? new RpcChainGateway(config.rpcUrl!, config.rpcKey) : new SimChainGateway(() => projections.projection),
};
