package super_calls;

class Base {
    void greet() {}
}

class Child extends Base {
    @Override
    void greet() {
        super.greet();
        wave();
    }

    void wave() {}
}

public class Main {
    public static void main(String[] args) { new Child().greet(); }
}
