const square = (x) => x * x;

const sumSquares = (xs) => xs.reduce((acc, x) => acc + square(x), 0);

const print = async (v) => {
  console.log(await Promise.resolve(v));
};

print(sumSquares([1, 2, 3]));
