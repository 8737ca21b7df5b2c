function double(x) {
  return x * 2;
}

function isBig(x) {
  return x > 4;
}

function add(a, b) {
  return a + b;
}

function report(x) {
  console.log(x);
}

const total = [1, 2, 3].map(double).filter(isBig).reduce(add, 0);
[total].forEach(report);
