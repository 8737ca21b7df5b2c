export default class Clock {
  now(): number {
    return Date.now();
  }
}

export function format(ms: number): string {
  return new Date(ms).toISOString();
}
