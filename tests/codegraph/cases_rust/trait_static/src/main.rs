trait Greet {
    fn hello(&self) -> String;
}

struct English;

impl Greet for English {
    fn hello(&self) -> String {
        String::new()
    }
}

fn main() {
    let e = English;
    e.hello();
}
