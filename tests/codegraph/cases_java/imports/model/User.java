package imports.model;

import imports.util.Strings;

public class User {
    private final String name;

    public User(String name) { this.name = name; }

    public String display() { return Strings.upper(name); }
}
