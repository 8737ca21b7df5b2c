package enums;

enum Level {
    LOW, HIGH;

    String label() { return name().toLowerCase(); }

    static Level parse(String s) { return HIGH; }
}

public class Main {
    public static void main(String[] args) {
        Level.parse("x").label();
        Level.LOW.label();
    }
}
