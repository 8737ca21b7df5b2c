package same_package;

public class Main {
    public static void main(String[] args) {
        Registry r = new Registry();
        r.register("x");
        Helpers.log("done");
    }
}
