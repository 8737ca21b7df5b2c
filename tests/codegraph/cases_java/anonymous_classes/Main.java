package anonymous_classes;

public class Main {
    void refresh() {}

    void schedule() {
        Runnable task = new Runnable() {
            @Override
            public void run() {
                refresh();
            }
        };
        task.run();
    }

    public static void main(String[] args) { new Main().schedule(); }
}
