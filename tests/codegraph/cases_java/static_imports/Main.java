package static_imports;

import static static_imports.util.MathUtil.square;
import static java.lang.Math.max;

public class Main {
    public static void main(String[] args) {
        square(3);
        max(1, 2);
    }
}
