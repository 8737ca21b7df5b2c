package static_methods;

public class Main {
    static int twice(int n) { return add(n, n); }

    static int add(int a, int b) { return a + b; }

    public static void main(String[] args) {
        twice(2);
        Main.add(1, 2);
    }
}
