function createCounter(start) {
  let n = start;
  return {
    inc() {
      n += 1;
      return this;
    },
    value() {
      return format(n);
    },
  };
}

function format(n) {
  return `#${n}`;
}

const c = createCounter(1);
console.log(c.inc().inc().value());
