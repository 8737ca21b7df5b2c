const add = (a) => (b) => sum(a, b);

function sum(a, b) {
  return a + b;
}

const inc = add(1);
console.log(inc(2));
