function add(a, b) {
  return a + b;
}

function square(x) {
  return multiply(x, x);
}

function multiply(a, b) {
  return a * b;
}

module.exports = { add, square, cube: (x) => multiply(x, square(x)) };
