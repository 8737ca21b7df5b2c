pub struct Model {
    pub name: String,
}

impl Model {
    pub fn new() -> Model {
        Model { name: String::new() }
    }
}
