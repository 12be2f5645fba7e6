package org.cudaipc4j.coord.fd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.cudaipc4j.testing.OpenDescriptors;
import org.junit.jupiter.api.Test;

/** {@link PidFd#warmUp()} takes a descriptor of this process's own and leaves nothing open. */
class PidFdWarmUpTest {
    @Test
    void warmingUpLeavesNoMemfdAndNoPidfdOpen() {
        List<Integer> memfds = OpenDescriptors.referringTo("/memfd:cudaipc4j-warm (deleted)");
        List<Integer> pidfds = OpenDescriptors.referringTo("anon_inode:[pidfd]");
        PidFd.warmUp();
        PidFd.warmUp();
        assertEquals(memfds, OpenDescriptors.referringTo("/memfd:cudaipc4j-warm (deleted)"));
        assertEquals(pidfds, OpenDescriptors.referringTo("anon_inode:[pidfd]"));
    }
}
