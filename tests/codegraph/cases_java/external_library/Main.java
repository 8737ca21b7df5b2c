package external_library;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.HashMap;

public class Main {
    public static void main(String[] args) {
        List<String> names = new ArrayList<>();
        names.add("a");
        Map<String, Integer> counts = new HashMap<>();
        counts.put("a", 1);
        System.out.println(names.size());
        String.valueOf(3);
    }
}
