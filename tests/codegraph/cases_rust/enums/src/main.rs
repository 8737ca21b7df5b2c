enum Level {
    Low,
    High,
}

impl Level {
    fn parse(s: &str) -> Level {
        Level::High
    }

    fn label(&self) -> &str {
        match self {
            Level::Low => "low",
            Level::High => "high",
        }
    }
}

fn main() {
    Level::parse("x").label();
    Level::Low.label();
}
