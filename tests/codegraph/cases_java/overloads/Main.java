package overloads;

class Calc {
    int add(int a, int b) { return a + b; }

    int add(int a, int b, int c) { return add(add(a, b), c); }
}

public class Main {
    public static void main(String[] args) {
        Calc c = new Calc();
        c.add(1, 2, 3);
    }
}
