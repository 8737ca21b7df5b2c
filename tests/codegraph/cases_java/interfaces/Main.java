package interfaces;

interface Plugin {
    void start();
}

class Echo implements Plugin {
    public void start() {}
}

class Noop implements Plugin {
    public void start() {}

    public void stop() {}
}

public class Main {
    static void launch(Plugin p) { p.start(); }

    public static void main(String[] args) {
        launch(new Echo());
        launch(new Noop());
    }
}
