pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn double(a: i32) -> i32 {
    add(a, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        add(1, 2);
        double(2);
    }
}
