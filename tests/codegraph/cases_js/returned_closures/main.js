function makeLogger(prefix) {
  return function (message) {
    write(prefix + message);
  };
}

function write(s) {
  console.log(s);
}

const log = makeLogger('> ');
log('hi');
makeLogger('! ')('there');
