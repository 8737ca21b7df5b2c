import Store from './lib/store.js';

const s = new Store();
s.add(1).add(2);
console.log(s.size());
