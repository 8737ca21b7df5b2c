fn work(n: u32) -> u32 {
    n
}

fn cleanup() {}

fn apply<F: Fn()>(f: F) {
    f();
}

fn main() {
    let step = |n: u32| work(n);
    step(1);
    apply(|| cleanup());
    let values: Vec<u32> = vec![1, 2].into_iter().map(|n| work(n)).collect();
}
