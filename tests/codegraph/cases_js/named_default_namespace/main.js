import mul, { add, sub as minus } from './lib/math.js';
import * as strings from './lib/strings.js';

console.log(strings.shout('total ' + add(1, mul(2, minus(5, 3)))));
