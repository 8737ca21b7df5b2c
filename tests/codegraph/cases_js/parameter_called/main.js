function run(task) {
  return task();
}

function twice(f, x) {
  return f(f(x));
}

function job() {
  return 'done';
}

function inc(n) {
  return n + 1;
}

function start() {
  console.log(run(job), twice(inc, 1));
}

start();
