mod a;

fn top() {}

fn main() {
    a::b::run();
}
