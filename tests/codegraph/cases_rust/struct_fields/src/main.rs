struct Cache;

impl Cache {
    fn get(&self, k: &str) -> Option<String> {
        None
    }
}

struct Db;

impl Db {
    fn query(&self, k: &str) -> String {
        String::new()
    }
}

struct App {
    cache: Cache,
    db: Box<Db>,
}

impl App {
    fn lookup(&self, k: &str) -> String {
        if let Some(v) = self.cache.get(k) {
            return v;
        }
        self.db.query(k)
    }
}

fn main() {
    let app = App { cache: Cache, db: Box::new(Db) };
    app.lookup("k");
}
