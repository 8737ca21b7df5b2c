function a() {
  return 1;
}

function b() {
  return 2;
}

const steps = [
  function () {
    return a();
  },
  function () {
    return b();
  },
];

for (const step of steps) {
  step();
}
