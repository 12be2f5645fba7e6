package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import org.cudaipc4j.base.Setting;
import org.junit.jupiter.api.Test;

/** {@code fromSystem} reads every launcher variable that {@link LaunchSettings} declares, each by its own name. */
class LaunchSettingsTest {
    private static Set<Setting<?>> declared() throws IllegalAccessException {
        Set<Setting<?>> settings = new LinkedHashSet<>();
        for (Field f : LaunchSettings.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Setting.class) {
                Setting<?> s = (Setting<?>) f.get(null);
                assertTrue(f.getName().equalsIgnoreCase(s.name()) || s == LaunchSettings.HEARTBEAT_TIMEOUT,
                        f.getName());
                settings.add(s);
            }
        }
        return settings;
    }

    @Test
    void everyVariableIsReadFromTheSystem() throws IllegalAccessException {
        Set<Setting<?>> launcher = declared();
        assertTrue(launcher.remove(LaunchSettings.HEARTBEAT_TIMEOUT));
        assertEquals(launcher, new LinkedHashSet<>(LaunchSettings.LAUNCHER_VARIABLES));
        assertEquals(24, launcher.size());
    }

    @Test
    void fromSystemHoldsOnlyTheseVariables() throws IllegalAccessException {
        Set<String> values = new TreeSet<>();
        for (Setting<?> s : declared()) {
            values.add(s.name());
        }
        assertTrue(values.containsAll(LaunchSettings.fromSystem().keySet()));
    }

    @Test
    void theSilenceLimitIsThreeSecondsUnlessSetAndItsErrorsNameTheVariable() {
        assertEquals(RendezvousOptions.DEFAULT_SILENCE_LIMIT, LaunchSettings.HEARTBEAT_TIMEOUT.valueOf(null));
        assertEquals(Duration.ofMillis(1500), LaunchSettings.HEARTBEAT_TIMEOUT.valueOf("1.5"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LaunchSettings.HEARTBEAT_TIMEOUT.valueOf("0"));
        assertEquals("CUDAIPC4J_HEARTBEAT_TIMEOUT=0 is not a number of seconds of at least 0.001", e.getMessage());
    }
}
