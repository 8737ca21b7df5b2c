pub fn helper() {
    inner();
}

fn inner() {}
