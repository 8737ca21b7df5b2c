package constructors;

class Base {
    Base(String name) { init(); }

    void init() {}
}

class Point extends Base {
    private final int x;

    Point() { this(0); }

    Point(int x) {
        super("point");
        this.x = x;
    }
}

class Plain {
    void use() {}
}

public class Main {
    public static void main(String[] args) {
        Point p = new Point(3);
        new Plain().use();
    }
}
