use std::collections::HashMap;

struct Task;

impl Task {
    fn run(&self) {}
}

struct Queue {
    tasks: Vec<Task>,
    by_name: HashMap<String, Task>,
}

impl Queue {
    fn run_all(&self) {
        for t in self.tasks.iter() {
            t.run();
        }
        for t in &self.tasks {
            t.run();
        }
        self.tasks[0].run();
        if let Some(t) = self.by_name.get("x") {
            t.run();
        }
    }
}

fn pending() -> Vec<Task> {
    Vec::new()
}

fn main() {
    for t in pending() {
        t.run();
    }
}
