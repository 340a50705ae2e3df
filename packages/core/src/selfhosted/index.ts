/** Clients and backends of the self-hosted colour-correction and background-removal containers. */
export * from '../contract/container';
export * from '../contract/bgr';
export * from '../container/client';
export * from '../container/errors';
export * from '../container/origin';
export * from '../container/from-pfc-params';
export * from '../container/backend';
export * from '../bgr/client';
export * from '../bgr/errors';
export { clearBgrLicenceCache } from '../bgr/licence';
export * from '../bgr/backend';
export * from './backend';
