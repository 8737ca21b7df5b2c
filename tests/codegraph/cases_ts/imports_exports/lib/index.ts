export { UserStore } from './models';
export type { User } from './models';
export * as util from './util';
