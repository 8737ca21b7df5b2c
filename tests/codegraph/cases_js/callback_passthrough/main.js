function later(cb) {
  setTimeout(cb, 0);
}

function each(items, fn) {
  items.forEach(fn);
}

function hello() {
  console.log('hello');
}

function show(x) {
  console.log(x);
}

later(hello);
each([1, 2], show);
