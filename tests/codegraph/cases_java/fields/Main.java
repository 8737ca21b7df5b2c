package fields;

class Repository {
    void save(String item) {}
}

class Cache {
    String get(String key) { return key; }
}

class Service {
    private final Repository repository = new Repository();
    private Cache cache;

    void store(String item) {
        repository.save(item);
        this.cache.get(item);
    }
}

public class Main {
    public static void main(String[] args) { new Service().store("x"); }
}
