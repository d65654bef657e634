export { AccessGate } from './access-gate';
export type { GatedRequest } from './access-gate';
export { AccessModule, AccessService } from './access.module';
export { generateApiKey, hashApiKey } from './api-key';
export { appendApiKey, readApiKeys } from './api-keys-feed';
export { gateMiddleware } from './gate-middleware';
export { issueLicense, verifyLicense } from './license';
export { accessSummary, startChecksOrExit } from './self-hosted';
