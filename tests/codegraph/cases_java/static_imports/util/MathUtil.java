package static_imports.util;

public final class MathUtil {
    public static int square(int n) { return n * n; }
}
