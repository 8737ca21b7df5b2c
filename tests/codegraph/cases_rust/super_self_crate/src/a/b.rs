pub fn run() {
    super::shared();
    self::local();
    crate::top();
}

fn local() {}
