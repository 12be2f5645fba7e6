package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reading format 1.0 strictly: what is accepted, and every refusal in one line naming the field. */
class DescriptorJsonTest {
    private static final String LEGACY = DescriptorJson.toJson(GoldenCases.all().get("legacy"));
    private static final String TORCH_C = DescriptorJson.toJson(GoldenCases.all().get("torch-c"));
    private static final String VMM = DescriptorJson.toJson(GoldenCases.all().get("vmm-fd"));

    private static void refused(String json, String expected) {
        DescriptorFormatException e = assertThrows(DescriptorFormatException.class,
                () -> DescriptorJson.fromJson(json), json);
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

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
    void aNewerOrOlderMajorIsRefusedInOneLine() {
        refused(LEGACY.replace("\"1.0\"", "\"2.0\""), "descriptor format 2.0 is newer than this reader's 1.x");
        refused(LEGACY.replace("\"1.0\"", "\"0.9\""), "descriptor format 0.9 is older");
        refused(LEGACY.replace("\"1.0\"", "\"1\""), "must be 'major.minor'");
        refused(LEGACY.replace("\"1.0\"", "1.0"), "'cudaipc4j_descriptor' must be a string");
        refused("{\"kind\":\"legacy\"}", "field 'cudaipc4j_descriptor' (the format version) is missing");
    }

    @Test
    void malformedTextIsRefused() {
        refused("", "not valid JSON");
        refused("{\"cudaipc4j_descriptor\":", "not valid JSON");
        refused("[1]", "not a JSON object");
        refused(LEGACY + "{}", "text after the JSON object");
        refused(LEGACY.replace("{\"cudaipc4j", "{\"bytes\":1,\"cudaipc4j"), "field 'bytes' is given twice");
        refused(LEGACY.replace("\"pid\":4242", "\"pid\":4242,\"pid\":1"), "field 'exporter.pid' is given twice");
        refused("{'cudaipc4j_descriptor':'1.0'}", "not valid JSON");
        assertThrows(DescriptorFormatException.class,
                () -> DescriptorJson.fromJson(new byte[] {'{', (byte) 0xff, '}'}), "not UTF-8");
    }

    @Test
    void missingAndMistypedFieldsAreNamed() {
        refused(LEGACY.replace("\"bytes\":33554437,", ""), "field 'bytes' is missing");
        refused(LEGACY.replace(",\"pid_namespace\":4026531836", ""), "field 'exporter.pid_namespace' is missing");
        refused(LEGACY.replace("33554437", "\"33554437\""), "field 'bytes' must be an integer, got \"33554437\"");
        refused(LEGACY.replace("33554437", "33554437.0"), "field 'bytes' must be an integer, got 33554437.0");
        refused(LEGACY.replace("33554437", "3e7"), "field 'bytes' must be an integer");
        refused(LEGACY.replace("33554437", "true"), "field 'bytes' must be an integer, got true");
        refused(LEGACY.replace("33554437", "-5"), "field 'bytes' must be >= 0, got -5");
        refused(LEGACY.replace("33554437", "9223372036854775808"), "field 'bytes' is out of range");
        refused(LEGACY.replace("\"pid\":4242", "\"pid\":2147483648"), "'exporter.pid' must be 1 to 2147483647");
        refused(LEGACY.replace("\"pid\":4242", "\"pid\":0"), "'exporter.pid' must be 1 to 2147483647");
        refused(LEGACY.replace("\"exporter\":{", "\"exporter\":[{").replace("\"export_id\":1}", "\"export_id\":1}]"),
                "field 'exporter' must be an object, got an array");
        refused(LEGACY.replace("GPU-01234567", "GPU-0123456"), "field 'device_uuid' must look like GPU-");
        refused(LEGACY.replace(",\"device_uuid\":\"GPU-01234567-89ab-cdef-0123-456789abcdef\"", ""),
                "field 'device_uuid' is missing");
    }

    @Test
    void badHexAndSizesAreRefused() {
        refused(LEGACY.replace("\"ipc_handle\":\"00", "\"ipc_handle\":\""), "field 'ipc_handle' must be 64 bytes"
                + " (128 hex digits), got 126 characters");
        refused(LEGACY.replace("\"ipc_handle\":\"00", "\"ipc_handle\":\"0"), "field 'ipc_handle' must be 64 bytes");
        refused(LEGACY.replace("\"ipc_handle\":\"00", "\"ipc_handle\":\"zz"), "field 'ipc_handle' is not hex");
        refused(TORCH_C.replace("\"handle\":\"0263", "\"handle\":\"0963"), "field 'torch.handle': torch handle has"
                + " version 9, newer than this reader knows");
        refused(TORCH_C.replace("\"handle\":\"0263", "\"handle\":\"02630"), "field 'torch.handle' must be an even");
    }

    @Test
    void fieldsOfAnotherKindAndInconsistentTorchFieldsAreRefused() {
        refused(LEGACY.replace("\"kind\":\"legacy\"", "\"kind\":\"nccl\""), "field 'kind' is 'nccl', not one of");
        refused(VMM.replace("\"fds\":1", "\"fds\":1,\"ipc_handle\":\"00\""), "field 'ipc_handle' does not belong to"
                + " kind vmm");
        refused(VMM.replace("\"posix_fd\"", "\"dmabuf\""), "field 'handle_type' is 'dmabuf'");
        refused(VMM.replace("\"fds\":1", "\"fds\":0"), "field 'fds' must be 1 to 253, got 0");
        refused(VMM.replace("[45]", "[45,46]"), "field 'fd_numbers' has 2 entries for fds 1");
        refused(VMM.replace("\"posix_fd\"", "\"fabric\""), "field 'fabric_handle' is missing");
        refused(TORCH_C.replace("\"ref_counter_offset\":0", "\"ref_counter_offset\":null"), "must be all null");
        refused(TORCH_C.replace("\"storage_bytes\":4194304", "\"storage_bytes\":4194305"),
                "field 'bytes' is 4194304 but torch.storage_bytes is 4194305");
        refused(TORCH_C.replace("\"shape\":[1024,1024]", "\"shape\":[1024,1025]"), "beyond the 4194304 described");
        refused(TORCH_C.replace("\"strides\":[1024,1]", "\"strides\":[1024]"), "differ in length");
        refused(TORCH_C.replace("\"float32\"", "\"float12\""), "field 'tensor.dtype': unknown dtype 'float12'");
        refused(TORCH_C.replace("\"wait\":true", "\"wait\":1"), "field 'event.wait' must be true or false");
        refused(TORCH_C.replace(",\"device_index\":0", ""), "field 'torch.device_index' is missing");
    }

    @Test
    void writingEscapesStringsAsTheFormatRules() {
        Descriptor d = Descriptor.vmmFd(GoldenCases.GPU, 1, new Descriptor.Exporter(1, 0, 0, "a\"\\\n\u0001é"));
        String json = DescriptorJson.toJson(d);
        assertTrue(json.contains("\"holders\":\"a\\\"\\\\\\n\\u0001\\u00e9\""), json);
        assertEquals(d, DescriptorJson.fromJson(json));
    }
}
