package wildcard_imports;

import wildcard_imports.shapes.*;
import java.util.*;

public class Main {
    public static void main(String[] args) {
        Square s = new Square(2);
        s.area();
        List<Square> all = new ArrayList<>();
        all.add(s);
    }
}
