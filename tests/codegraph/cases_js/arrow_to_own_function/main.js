function retry(times, fn) {
  for (let i = 0; i < times; i++) {
    if (fn(i)) {
      return true;
    }
  }
  return false;
}

function attempt(i) {
  return i > 1;
}

retry(3, (i) => attempt(i));
retry(2, attempt);
