pub struct Engine;

impl Engine {
    pub fn start() -> Engine {
        Engine
    }

    pub fn stop(&self) {}
}

pub fn version() -> u32 {
    1
}
