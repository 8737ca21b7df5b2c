package instance_methods;

class Counter {
    private int n;

    void inc() { this.add(1); }

    void add(int k) { n += k; }

    int get() { return n; }
}

public class Main {
    public static void main(String[] args) {
        Counter c = new Counter();
        c.inc();
        c.get();
    }
}
