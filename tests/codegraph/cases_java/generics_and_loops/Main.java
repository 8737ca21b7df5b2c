package generics_and_loops;

import java.util.List;

class Task {
    void run() {}
}

class Box<T> {
    private T item;

    void put(T item) { this.item = item; }

    T take() { return item; }
}

public class Main {
    static void runAll(List<Task> tasks, Task[] more) {
        for (Task t : tasks) {
            t.run();
        }
        more[0].run();
    }

    public static void main(String[] args) {
        Box<Task> box = new Box<>();
        box.put(new Task());
        box.take();
        runAll(List.of(), new Task[0]);
    }
}
