trait Named {
    fn name(&self) -> String;

    fn greet(&self) -> String {
        self.name()
    }
}

struct Dog;

impl Named for Dog {
    fn name(&self) -> String {
        String::from("dog")
    }
}

fn main() {
    let d = Dog;
    d.greet();
}
