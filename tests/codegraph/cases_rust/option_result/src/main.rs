#[derive(Debug)]
struct User;

impl User {
    fn greet(&self) {}

    fn save(&self) -> Result<(), String> {
        Ok(())
    }
}

fn find(id: u32) -> Option<User> {
    Some(User)
}

fn load() -> Result<User, String> {
    Ok(User)
}

fn run() -> Result<(), String> {
    let u = load()?;
    u.save()?;
    if let Some(found) = find(1) {
        found.greet();
    }
    match load() {
        Ok(user) => user.greet(),
        Err(_) => {}
    }
    find(2).unwrap().greet();
    Ok(())
}

fn main() {
    run().unwrap();
}
