function setup() {
  console.log('setup');
}

(function () {
  setup();
  (function inner() {
    done();
  })();
})();

function done() {
  console.log('done');
}
