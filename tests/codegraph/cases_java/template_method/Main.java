package template_method;

abstract class Job {
    final void run() {
        setUp();
        execute();
    }

    void setUp() {}

    abstract void execute();
}

class Backup extends Job {
    @Override
    void execute() { copy(); }

    void copy() {}
}

public class Main {
    public static void main(String[] args) { new Backup().run(); }
}
