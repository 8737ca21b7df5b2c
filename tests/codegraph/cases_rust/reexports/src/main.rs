mod shapes;

use shapes::Square;

fn main() {
    let s = Square::new(2);
    s.area();
    shapes::unit().area();
}
