const greet = require('./lib/greet.js');

console.log(greet.hello('a'), greet.bye('b'), greet.shout('c'));
