/** Fleets of self-hosted instances and adaptive concurrency. */
export * from './fleet';
export { AutoWidth } from './widths';
export * from '../concurrency/adaptive';
