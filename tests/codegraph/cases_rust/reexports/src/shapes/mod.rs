mod square;

pub use square::Square;

pub fn unit() -> Square {
    Square::new(1)
}
