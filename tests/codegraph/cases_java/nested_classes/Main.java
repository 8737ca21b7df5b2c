package nested_classes;

public class Main {
    static class Config {
        String value() { return "v"; }
    }

    class Worker {
        void work() {
            log("working");
            helper();
        }
    }

    void log(String s) {}

    void helper() {}

    void start() {
        Worker w = new Worker();
        w.work();
    }

    public static void main(String[] args) {
        Config c = new Config();
        c.value();
        new Main().start();
    }
}
