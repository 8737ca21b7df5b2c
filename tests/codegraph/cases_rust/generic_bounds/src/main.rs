trait Store {
    fn save(&self, key: &str);
}

struct Memory;

impl Store for Memory {
    fn save(&self, key: &str) {}
}

fn persist<S: Store>(store: &S) {
    store.save("a");
}

fn persist_impl(store: impl Store) {
    store.save("b");
}

fn main() {
    persist(&Memory);
    persist_impl(Memory);
}
