import { parse, render } from './lib/index.js';

console.log(render(parse('a b')));
