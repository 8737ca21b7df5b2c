export function add(a, b) {
  return a + b;
}

export default function mul(a, b) {
  return a * b;
}

export const sub = (a, b) => a - b;
