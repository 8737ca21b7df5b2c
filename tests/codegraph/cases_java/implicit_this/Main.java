package implicit_this;

public class Main {
    private final StringBuilder out = new StringBuilder();

    void run() {
        prepare();
        step(1);
    }

    void prepare() { log("prepare"); }

    void step(int i) { log("step"); }

    void log(String s) { out.append(s); }

    public static void main(String[] args) { new Main().run(); }
}
