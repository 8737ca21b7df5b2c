package lambdas;

import java.util.function.Supplier;

public class Main {
    static String load() { return "data"; }

    static void print(String s) {}

    public static void main(String[] args) {
        Supplier<String> s = () -> load();
        Runnable r = () -> {
            print("run");
        };
        s.get();
    }
}
