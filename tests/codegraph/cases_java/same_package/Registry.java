package same_package;

public class Registry {
    public void register(String name) { Helpers.log(name); }
}

class Helpers {
    static void log(String s) {}
}
