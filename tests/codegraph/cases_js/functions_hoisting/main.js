start();

function start() {
  greet('world');
}

function greet(name) {
  console.log(format(name));
}

function format(s) {
  return `hello ${s}`;
}
