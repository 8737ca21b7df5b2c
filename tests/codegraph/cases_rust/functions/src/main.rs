fn helper() -> i32 {
    1
}

fn twice() -> i32 {
    helper() + helper()
}

fn main() {
    twice();
    helper();
}
