import Clock from './lib/clock';
import * as clock from './lib/clock';

const c = new Clock();
console.log(clock.format(c.now()));
