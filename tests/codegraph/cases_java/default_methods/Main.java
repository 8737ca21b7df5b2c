package default_methods;

interface Greeter {
    String name();

    default String greet() { return "hello " + name(); }
}

class English implements Greeter {
    public String name() { return "en"; }
}

public class Main {
    public static void main(String[] args) {
        Greeter g = new English();
        g.greet();
    }
}
