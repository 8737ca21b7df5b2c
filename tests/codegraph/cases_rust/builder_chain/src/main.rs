struct Request;

impl Request {
    fn send(&self) {}
}

struct Builder {
    url: String,
}

impl Builder {
    fn new() -> Self {
        Builder { url: String::new() }
    }

    fn url(mut self, url: &str) -> Self {
        self
    }

    fn header(self, h: &str) -> Builder {
        self
    }

    fn build(self) -> Request {
        Request
    }
}

fn main() {
    Builder::new().url("x").header("h").build().send();
}
