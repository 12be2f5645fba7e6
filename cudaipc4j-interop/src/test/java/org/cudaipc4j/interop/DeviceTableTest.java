package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A device is found by UUID whatever its ordinal here; an absent one is refused listing what is visible. */
class DeviceTableTest {
    private static final UUID A = UUID.fromString("426b8e85-5e4c-aaa3-1e6f-9cc7a5d025c3");
    private static final UUID B = UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");

    @Test
    void theUuidDecidesNotTheOrdinal() {
        DeviceTable table = () -> List.of(new VisibleDevice(0, B, "NVIDIA H200"), new VisibleDevice(1, A, "NVIDIA H200"));
        assertEquals(1, table.resolve(A).ordinal());
        assertEquals(0, table.resolve(B).ordinal());
        DeviceTable swapped = () -> List.of(new VisibleDevice(0, A, null));
        assertEquals(0, swapped.resolve(A).ordinal(), "CUDA_VISIBLE_DEVICES=1 makes it ordinal 0 here");
        assertEquals(A, swapped.resolve(DescriptorJson.parseUuid("GPU-426B8E85-5E4C-AAA3-1E6F-9CC7A5D025C3")).uuid());
    }

    @Test
    void anAbsentUuidIsRefusedListingTheVisibleDevices() {
        DeviceTable table = () -> List.of(new VisibleDevice(0, B, "NVIDIA H200"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> table.resolve(A));
        assertEquals("no visible GPU has UUID GPU-426b8e85-5e4c-aaa3-1e6f-9cc7a5d025c3 (visible: 0:"
                + " GPU-01234567-89ab-cdef-0123-456789abcdef (NVIDIA H200); is CUDA_VISIBLE_DEVICES different here?)",
                e.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> ((DeviceTable) List::of).resolve(A));
        assertTrue(none.getMessage().contains("(visible: none;"), none.getMessage());
    }
}
