interface Shape {
  area(): number;
}

class Circle implements Shape {
  constructor(private r: number) {}

  area(): number {
    return Math.PI * this.r * this.r;
  }
}

class Square implements Shape {
  constructor(private side: number) {}

  area(): number {
    return this.side * this.side;
  }
}

function total(shapes: Shape[]): number {
  let sum = 0;
  for (const s of shapes) {
    sum += s.area();
  }
  return sum;
}

function largest(a: Shape, b: Shape): number {
  return Math.max(a.area(), b.area());
}

console.log(total([new Circle(1), new Square(2)]), largest(new Circle(2), new Square(3)));
