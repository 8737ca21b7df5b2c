package inheritance;

class Animal {
    String name() { return "animal"; }

    String describe() { return name(); }
}

class Dog extends Animal {
    void fetch() {}
}

public class Main {
    public static void main(String[] args) {
        Dog d = new Dog();
        d.describe();
        d.fetch();
    }
}
