package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reading format 1.0 strictly: what is accepted, and every refusal in one line naming the field. */
class DescriptorJsonTest {
    private static final String LEGACY = DescriptorJson.toJson(GoldenCases.all().get("legacy"));
    private static final String VMM = DescriptorJson.toJson(GoldenCases.all().get("vmm-fd"));

    @Test
    void everyGoldenCaseRoundTrips() {
        for (Descriptor d : GoldenCases.all().values()) {
            assertEquals(d, DescriptorJson.fromJson(DescriptorJson.toJson(d)));
            assertEquals(d, DescriptorJson.fromJson((DescriptorJson.toJson(d) + "\n").getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Test
    void anyMinorVersionUnknownFieldsNullOptionalsWhitespaceAndUpperCaseHexAreRead() {
        Descriptor d = GoldenCases.all().get("legacy");
        String text = LEGACY.replace("\"1.0\"", "\"1.7\"").replace("{\"cudaipc4j", "{ \"future\": {\"x\": [1, 2]},"
                + " \"cudaipc4j").replace("\"export_id\":1", "\"export_id\":1,\"since\":\"1.7\"")
                .replace("000102030405060708090a0b", "000102030405060708090A0B") + ",\"tensor\":null}";
        text = text.substring(0, text.lastIndexOf("},\"tensor\"")) + ",\"tensor\":null,\"event\":null}";
        assertEquals(d, DescriptorJson.fromJson("\n  " + text + "  \n"));
        assertNull(DescriptorJson.fromJson(VMM.replace("\"fd_numbers\":[45]", "\"fd_numbers\":null")).fdNumbers());
    }

    @Test
    void stringsAreWrittenAndShownEscapedAsTheFormatRules() {
        assertEquals("\"a\\\"\\\\\\n\\u0001\\u00e9\\u007f\\ud83d\\ude00\"",
                DescriptorJsonWriter.quoted("a\"\\\n\u0001\u00e9\u007f\ud83d\ude00"));
        assertEquals("\"" + "x".repeat(56) + "...", JsonValues.shown("x".repeat(61)));
    }
}
