package records;

record Point(int x, int y) {
    Point scale(int k) { return new Point(x * k, y * k); }

    int sum() { return x + y; }
}

public class Main {
    public static void main(String[] args) {
        Point p = new Point(1, 2);
        p.scale(2).sum();
    }
}
