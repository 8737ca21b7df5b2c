fn double(n: i32) -> i32 {
    n * 2
}

fn apply(f: fn(i32) -> i32, n: i32) -> i32 {
    f(n)
}

fn main() {
    apply(double, 3);
    let g = double;
    g(1);
}
