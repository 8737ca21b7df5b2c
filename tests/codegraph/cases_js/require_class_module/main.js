const Queue = require('./lib/queue');

function handle(x) {
  console.log(x);
}

const q = new Queue();
q.push(1).push(2).drain(handle);
