export * from './errors';
export * from './transport';
export * from './backend';
export * from './contract/webapi-types';
export * from './contract/webapi-params';
export * from './contract/colours';
