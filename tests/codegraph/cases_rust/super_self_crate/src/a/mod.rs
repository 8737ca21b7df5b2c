pub mod b;

pub fn shared() {}
