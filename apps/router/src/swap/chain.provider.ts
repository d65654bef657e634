import type { Provider } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { ProjectionService } from '../projection/projection.service';
import { CHAIN_GATEWAY, type ChainGateway } from '../chain/chain-gateway';
import { RpcChainGateway } from '../chain/rpc.gateway';
import { SimChainGateway } from '../chain/sim.gateway';

/** CHAIN_GATEWAY=sim (default) or rpc (checked at start: a node that refuses the key or does not answer stops the start) */
export const chainGatewayProvider: Provider = {
  provide: CHAIN_GATEWAY,
  inject: [APP_CONFIG, ProjectionService],
  useFactory: async (config: AppConfig, projections: ProjectionService): Promise<ChainGateway> => {
    if (config.chainGateway !== 'rpc') return new SimChainGateway(() => projections.projection);
    const gateway = new RpcChainGateway(config.rpcUrl!, config.rpcKey);
    await gateway.check();
    return gateway;
  },
};
