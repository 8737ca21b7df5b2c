package casts_and_var;

class Engine {
    void start() {}
}

public class Main {
    static Object make() { return new Engine(); }

    public static void main(String[] args) {
        Object o = make();
        ((Engine) o).start();
        var e = new Engine();
        e.start();
        if (o instanceof Engine) {
            Engine cast = (Engine) o;
            cast.start();
        }
    }
}
