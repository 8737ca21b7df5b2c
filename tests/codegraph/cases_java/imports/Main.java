package imports;

import imports.util.Strings;
import imports.model.User;

public class Main {
    public static void main(String[] args) {
        Strings.upper("a");
        User u = new User("ann");
        u.display();
    }
}
