pub struct Saw;

impl Saw {
    pub fn new() -> Saw {
        Saw
    }

    pub fn cut(&self) {
        measure();
    }
}

pub fn hammer() {}

pub fn measure() {}
