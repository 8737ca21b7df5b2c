mod model;
mod render;

use model::Model;
use render::Render;

fn draw(r: &dyn Render) {
    r.render();
}

fn main() {
    let m = Model::new();
    m.render();
    draw(&m);
}
