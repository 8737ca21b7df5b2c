pub mod http;

pub fn connect() {
    http::get("localhost");
}
