struct Config {
    name: String,
}

impl Config {
    fn default_name() -> String {
        String::from("app")
    }

    fn build() -> Config {
        Config { name: Self::default_name() }
    }

    fn validate(&self) -> bool {
        !self.name.is_empty()
    }
}

fn main() {
    Config::build().validate();
}
