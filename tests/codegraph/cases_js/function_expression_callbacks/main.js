function save(x) {
  console.log('save', x);
}

function validate(x) {
  return x > 0;
}

[3, -1].forEach(function (x) {
  if (validate(x)) {
    save(x);
  }
});

setTimeout(function () {
  save(0);
}, 0);
