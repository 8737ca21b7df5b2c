export function render(tokens) {
  return tokens.join(',');
}
