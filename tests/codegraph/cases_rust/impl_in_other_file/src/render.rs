use crate::model::Model;

pub trait Render {
    fn render(&self);
}

impl Render for Model {
    fn render(&self) {}
}
