function fact(n) {
  return n <= 1 ? 1 : n * fact(n - 1);
}

function log(x) {
  console.log(x);
}

function run() {
  const log = (x) => console.error(x);
  log(fact(4));
}

run();
log(fact(3));
