fn compute() -> u32 {
    42
}

fn render() -> String {
    String::new()
}

fn log(n: u32) {}

fn main() {
    println!("{}", render());
    log(compute());
}
