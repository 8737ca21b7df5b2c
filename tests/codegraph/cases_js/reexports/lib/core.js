export function parse(s) {
  return tokenize(s);
}

function tokenize(s) {
  return s.split(' ');
}
