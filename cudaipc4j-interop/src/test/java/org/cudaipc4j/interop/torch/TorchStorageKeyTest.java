package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The storage key's hand-written equals, hashCode and toString. */
class TorchStorageKeyTest {
    private static final String MAPPING = "c:\u0000\u0001a\\\u00ff";

    @Test
    void equalKeysAreEqualAndHashAlike() {
        TorchStorageKey k = new TorchStorageKey(MAPPING, 7, 4096, 512);
        TorchStorageKey same = new TorchStorageKey(new String(MAPPING.toCharArray()), 7, 4096, 512);
        assertEquals(k, same);
        assertEquals(k.hashCode(), same.hashCode());
    }

    @Test
    void eachFieldTellsKeysApart() {
        TorchStorageKey k = new TorchStorageKey(MAPPING, 7, 4096, 512);
        for (TorchStorageKey other : List.of(new TorchStorageKey(MAPPING + "x", 7, 4096, 512),
                new TorchStorageKey(MAPPING, 8, 4096, 512), new TorchStorageKey(MAPPING, 7, 4097, 512),
                new TorchStorageKey(MAPPING, 7, 4096, 513))) {
            assertNotEquals(k, other, other.toString());
            assertNotEquals(k.hashCode(), other.hashCode(), other.toString());
        }
        assertFalse(k.equals(null));
        assertFalse(k.equals(MAPPING));
    }

    @Test
    void itsWordsShowTheMappingsBytesAsEscapes() {
        String words = new TorchStorageKey(MAPPING, 7, 4096, 512).toString();
        assertEquals("TorchStorageKey[mapping=c:\\x00\\x01a\\x5c\\xff, producerStart=7, offset=4096, bytes=512]", words);
        assertTrue(words.chars().allMatch(c -> c >= 0x20 && c < 0x7f), words);
    }

    @Test
    void aKeyNeedsAMapping() {
        assertThrows(NullPointerException.class, () -> new TorchStorageKey(null, 0, 0, 1));
    }
}
