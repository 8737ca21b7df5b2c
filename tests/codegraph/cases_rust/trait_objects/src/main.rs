trait Shape {
    fn area(&self) -> f64;
}

struct Square(f64);

struct Circle(f64);

impl Shape for Square {
    fn area(&self) -> f64 {
        self.0 * self.0
    }
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        3.0 * self.0 * self.0
    }
}

fn measure(s: &dyn Shape) -> f64 {
    s.area()
}

fn total(shapes: Vec<Box<dyn Shape>>) -> f64 {
    let mut sum = 0.0;
    for s in shapes.iter() {
        sum += s.area();
    }
    sum
}

fn main() {
    measure(&Square(1.0));
    total(Vec::new());
}
