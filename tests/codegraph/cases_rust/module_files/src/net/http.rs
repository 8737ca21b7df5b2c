pub fn get(url: &str) {
    super::connect_raw(url);
}
