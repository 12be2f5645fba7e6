package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

/** {@code fromSystem} reads every variable that {@link LaunchVariables} names, each by its own name. */
class LaunchVariablesTest {
    private static Set<String> constants() throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field f : LaunchVariables.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                names.add(f.getName());
                assertTrue(f.getName().equalsIgnoreCase((String) f.get(null)), f.getName());
            }
        }
        return names;
    }

    @Test
    void everyVariableIsReadFromTheSystem() throws IOException, IllegalAccessException {
        Path root = ProjectRoot.find().orElseThrow();
        String source = Files.readString(root.resolve(
                "cudaipc4j-launch/src/main/java/org/cudaipc4j/launch/LaunchVariables.java"));
        Set<String> read = new TreeSet<>();
        var m = java.util.regex.Pattern.compile("put\\(env, (\\w+), System\\.getenv\\((\\w+)\\)\\)").matcher(source);
        while (m.find()) {
            assertEquals(m.group(1), m.group(2));
            read.add(m.group(1));
        }
        assertEquals(constants(), read);
    }

    @Test
    void fromSystemHoldsOnlyTheseVariables() throws IllegalAccessException {
        Set<String> values = new TreeSet<>();
        for (Field f : LaunchVariables.class.getFields()) {
            values.add((String) f.get(null));
        }
        assertTrue(values.containsAll(LaunchVariables.fromSystem().keySet()));
    }
}
