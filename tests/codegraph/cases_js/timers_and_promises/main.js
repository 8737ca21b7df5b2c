function tick() {
  console.log('tick');
}

function onValue(v) {
  return v + 1;
}

function onError(e) {
  console.error(e);
}

function finish() {
  console.log('finish');
}

function schedule() {
  setTimeout(tick, 0);
  Promise.resolve(1).then(onValue).catch(onError).finally(finish);
}

schedule();
