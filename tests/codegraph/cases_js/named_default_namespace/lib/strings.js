export function shout(s) {
  return s.toUpperCase() + '!';
}
