class Box<T> {
  constructor(private value: T) {}

  map<U>(f: (value: T) => U): Box<U> {
    return new Box(f(this.value));
  }

  get(): T {
    return this.value;
  }
}

function double(n: number): number {
  return n * 2;
}

console.log(new Box(2).map(double).map((n) => n + 1).get());
