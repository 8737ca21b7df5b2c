export { parse } from './core.js';
export * from './format.js';
