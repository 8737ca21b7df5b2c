mod tools;

use crate::tools::{hammer, Saw};
use tools::measure as m;

fn main() {
    hammer();
    let s = Saw::new();
    s.cut();
    m();
}
