package interface_inheritance;

interface Reader {
    String read();
}

interface Source extends Reader {
    void close();
}

class FileSource implements Source {
    public String read() { return ""; }

    public void close() {}
}

public class Main {
    static void drain(Source s) {
        s.read();
        s.close();
    }

    public static void main(String[] args) { drain(new FileSource()); }
}
