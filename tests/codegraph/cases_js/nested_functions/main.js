function outer(n) {
  function inner(k) {
    return double(k) + 1;
  }
  function double(k) {
    return k * 2;
  }
  return inner(n);
}

console.log(outer(3));
