mod net;
mod util;

fn main() {
    util::helper();
    net::http::get("x");
    net::connect();
}
