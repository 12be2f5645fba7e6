package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SettingTest {
    private static final String PROPERTY = "cudaipc4j.settingTest";

    @Test
    void aPropertyIsItsTextElseItsDefault() {
        Setting<String> s = Setting.property(PROPERTY, "/dev/shm", "where");
        try {
            assertFalse(s.isSet());
            assertEquals("/dev/shm", s.get());
            assertEquals("/dev/shm", s.text());
            System.setProperty(PROPERTY, "");
            assertTrue(s.isSet());
            assertEquals("", s.get());
            System.setProperty(PROPERTY, "/tmp/x");
            assertEquals("/tmp/x", s.get());
            assertEquals(Setting.Source.PROPERTY, s.source());
            assertEquals(PROPERTY, s.name());
            assertEquals(PROPERTY, s.toString());
        } finally {
            System.clearProperty(PROPERTY);
        }
    }

    @Test
    void aSwitchPropertyReadsAsBooleanGetBooleanDoes() {
        Setting<Boolean> s = Setting.switchProperty(PROPERTY, "on");
        try {
            assertEquals("false", s.defaultValue());
            for (String text : new String[] {null, "", "1", "yes", "true", "TRUE", "True", " true"}) {
                if (text == null) {
                    System.clearProperty(PROPERTY);
                } else {
                    System.setProperty(PROPERTY, text);
                }
                assertEquals(Boolean.getBoolean(PROPERTY), s.get(), String.valueOf(text));
            }
        } finally {
            System.clearProperty(PROPERTY);
        }
    }

    @Test
    void aSwitchVariableIsOnForItsTextAlone() {
        Setting<Boolean> s = Setting.switchVariable("CUDAIPC4J_SETTING_TEST", "1", "on");
        assertNull(s.defaultValue());
        assertEquals(Setting.Source.ENVIRONMENT, s.source());
        assertFalse(s.isSet()); // no test run sets it
        assertFalse(s.get());
        assertTrue(s.valueOf("1"));
        assertFalse(s.valueOf(" 1"));
        assertFalse(s.valueOf("true"));
        assertFalse(s.valueOf(null));
    }

    @Test
    void aParsedSettingParsesItsDefaultWhenNotSet() {
        Setting<Integer> s = Setting.variable("CUDAIPC4J_SETTING_TEST", "3", "a count", Integer::parseInt);
        assertEquals(3, s.get());
        assertEquals(3, s.valueOf(null));
        assertEquals(7, s.valueOf("7"));
        assertThrows(NumberFormatException.class, () -> s.valueOf("x"));
        Setting<String> none = Setting.variable("CUDAIPC4J_SETTING_TEST", null, "text");
        assertNull(none.get());
        assertNull(none.text());
    }

    @Test
    void aDeclarationNeedsANameAndOneLine() {
        assertThrows(IllegalArgumentException.class, () -> Setting.property(" ", null, "what"));
        assertThrows(IllegalArgumentException.class, () -> Setting.property(PROPERTY, null, ""));
        assertThrows(IllegalArgumentException.class, () -> Setting.property(PROPERTY, null, "two\nlines"));
        assertThrows(NullPointerException.class, () -> Setting.property(PROPERTY, null, null));
    }
}
