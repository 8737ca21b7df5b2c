package builder_chains;

class Request {
    void send() {}
}

class Builder {
    private String url;

    Builder url(String url) {
        this.url = url;
        return this;
    }

    Builder header(String h) { return this; }

    Request build() { return new Request(); }
}

public class Main {
    public static void main(String[] args) {
        new Builder().url("x").header("h").build().send();
    }
}
