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
import org.cudaipc4j.coord.Liveness;
import org.junit.jupiter.api.Test;

/**
 * {@code fromSystem} reads every launcher variable that {@link LaunchSettings} declares, each by its own name; the
 * rendezvous's silence limit is {@link Liveness}'s.
 */
class LaunchSettingsTest {
    private static Set<Setting<?>> declared() throws IllegalAccessException {
        Set<Setting<?>> settings = new LinkedHashSet<>();
        for (Field f : LaunchSettings.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Setting.class) {
                Setting<?> s = (Setting<?>) f.get(null);
                assertTrue(f.getName().equalsIgnoreCase(s.name()), f.getName());
                settings.add(s);
            }
        }
        return settings;
    }

    @Test
    void everyVariableIsReadFromTheSystem() throws IllegalAccessException {
        Set<Setting<?>> launcher = declared();
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
    void theRendezvousSilenceLimitIsEveryGroups() {
        assertEquals(Liveness.DEFAULT_SILENCE_LIMIT, RendezvousOptions.DEFAULT_SILENCE_LIMIT);
        assertEquals(Duration.ofMillis(1500), RendezvousOptions.silenceLimitFrom("1.5"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RendezvousOptions.silenceLimitFrom("0"));
        assertEquals("CUDAIPC4J_HEARTBEAT_TIMEOUT=0 is not a number of seconds of at least 0.001", e.getMessage());
    }
}
