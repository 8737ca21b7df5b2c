package exceptions;

class ConfigException extends Exception {
    ConfigException(String message) { super(message); }
}

public class Main {
    static void load(String path) throws ConfigException {
        if (path.isEmpty()) {
            throw new ConfigException("empty");
        }
    }

    public static void main(String[] args) {
        try {
            load("");
        } catch (ConfigException e) {
            e.getMessage();
        }
    }
}
