package virtual_calls;

class Shape {
    double area() { return 0; }
}

class Square extends Shape {
    @Override
    double area() { return 4; }
}

class Circle extends Shape {
    @Override
    double area() { return 3; }
}

public class Main {
    static double measure(Shape s) { return s.area(); }

    public static void main(String[] args) {
        measure(new Square());
        Circle c = new Circle();
        c.area();
    }
}
