export { accessLog, upgradeAccess } from './access-log';
export { logger } from './logger';
export { metrics, secondsSince } from './metrics';
export { startOpsServer } from './ops-server';
export { setRequestKeyId } from './request-context';
export { startApp } from './start';
