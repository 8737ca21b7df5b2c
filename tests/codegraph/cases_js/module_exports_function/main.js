const make = require('./lib/make');
const Widget = require('./lib/make').Widget;

make('a').show();
new Widget('b').show();
