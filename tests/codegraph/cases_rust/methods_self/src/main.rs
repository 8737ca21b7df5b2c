struct Counter {
    n: u32,
}

impl Counter {
    fn new() -> Self {
        Counter { n: 0 }
    }

    fn inc(&mut self) {
        self.add(1);
    }

    fn add(&mut self, k: u32) {
        self.n += k;
    }

    fn get(&self) -> u32 {
        self.n
    }
}

fn main() {
    let mut c = Counter::new();
    c.inc();
    c.get();
}
