const math = require('./lib/math');
const { add } = require('./lib/math');

console.log(math.square(3), add(1, 2), math.cube(2));
