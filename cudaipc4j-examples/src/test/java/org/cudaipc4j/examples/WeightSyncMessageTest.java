package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class WeightSyncMessageTest {
    private static final String SHA = "ab".repeat(32);

    @Test
    void everyMessageReadsBackAsWritten() {
        for (WeightSyncMessage m : List.of(new WeightSyncMessage.Hello(4321, 100), new WeightSyncMessage.Round(7, 100),
                new WeightSyncMessage.Ok(7), new WeightSyncMessage.End(), new WeightSyncMessage.Bye(),
                new WeightSyncMessage.Memory(0, 512, 0), new WeightSyncMessage.Ready(77),
                new WeightSyncMessage.Export("layer099.float64"), new WeightSyncMessage.Mapped(100),
                new WeightSyncMessage.Checksum("layer000.float32", -2), new WeightSyncMessage.Checksum("w", 0))) {
            assertEquals(m, WeightSyncMessage.parse(m.format()));
        }
        var t = (WeightSyncMessage.Tensor) WeightSyncMessage.parse(
                "weightsync/1 tensor layer001.bfloat16 " + SHA + " {\"kind\": \"torch\", \"x\": \"a b\"}");
        assertEquals("layer001.bfloat16", t.name());
        assertArrayEquals(HexFormat.of().parseHex(SHA), t.sha256());
        assertEquals("{\"kind\": \"torch\", \"x\": \"a b\"}", t.descriptorJson(), "the descriptor keeps its spaces");
        assertEquals("weightsync/1 tensor layer001.bfloat16 " + SHA + " {\"kind\": \"torch\", \"x\": \"a b\"}",
                t.format());
    }

    @Test
    void theLinesOfThePythonTrainerParse() {
        // As weight_sync.py writes them: " ".join([VERSION, *fields]).
        assertEquals(new WeightSyncMessage.Hello(99, 3), WeightSyncMessage.parse("weightsync/1 hello 99 3"));
        assertEquals(new WeightSyncMessage.Memory(0, 0, 0), WeightSyncMessage.parse("weightsync/1 memory 0 0 0"));
    }

    @Test
    void theLinesOfTheJavaTrainerAndThePythonServer() {
        assertEquals("weightsync/1 checksum layer001.bfloat16 fffffffffffffffe",
                new WeightSyncMessage.Checksum("layer001.bfloat16", -2).format());
        assertEquals("weightsync/1 export layer001.bfloat16", new WeightSyncMessage.Export("layer001.bfloat16").format());
        // As weight_sync.py's server writes them.
        assertEquals(new WeightSyncMessage.Ready(4321), WeightSyncMessage.parse("weightsync/1 ready 4321"));
        assertEquals(new WeightSyncMessage.Mapped(3), WeightSyncMessage.parse("weightsync/1 mapped 3"));
        assertEquals(new WeightSyncMessage.Ok(1), WeightSyncMessage.parse("weightsync/1 ok 1"));
    }

    @Test
    void badLinesAreRefusedInOneLineNamingTheProblem() {
        assertMessage("the other side closed the pipe", null);
        assertMessage("not a weightsync/1 message: weightsync/2 hello 1 2", "weightsync/2 hello 1 2");
        assertMessage("a weightsync/1 message without a type: weightsync/1", "weightsync/1");
        assertMessage("an unknown weightsync/1 message type 'bonjour'", "weightsync/1 bonjour 1");
        assertMessage("a weightsync/1 message with 1 field(s), 2 expected", "weightsync/1 round 3");
        assertMessage("a weightsync/1 message with 1 field(s), 0 expected", "weightsync/1 end now");
        assertMessage("a weightsync/1 round message with a bad number", "weightsync/1 round x 100");
        assertMessage("a tensor line has a name, a sha256 and a descriptor", "weightsync/1 tensor w " + SHA);
        assertMessage("a sha256 has 32 bytes, got 2", "weightsync/1 tensor w abcd {}");
        assertMessage("a checksum has 16 hex digits, got 'abcd'", "weightsync/1 checksum w abcd");
        assertMessage("a checksum has 16 hex digits, got '-000000000000001'", "weightsync/1 checksum w -000000000000001");
        assertMessage("a weightsync/1 message with 1 field(s), 2 expected", "weightsync/1 checksum w");
        assertMessage("a weightsync/1 message with 2 field(s), 1 expected", "weightsync/1 export a b");
        assertMessage("a weightsync/1 ready message with a bad number", "weightsync/1 ready me");
    }

    private static void assertMessage(String expected, String line) {
        var e = assertThrows(IllegalArgumentException.class, () -> WeightSyncMessage.parse(line));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        assertEquals(-1, e.getMessage().indexOf('\n'), "one line");
    }

    @Test
    void theServerRefusesATrainerThatSkipsARoundBeforeTouchingCuda() {
        // The leases start first (a small JVM, no GPU); the round check comes before any descriptor is opened.
        var in = new BufferedReader(new StringReader("weightsync/1 hello 1 2\nweightsync/1 round 2 2\n"));
        var e = assertThrows(IllegalStateException.class, () -> WeightSyncExample.serve(in, new StringWriter(),
                WeightSyncExample.Allocator.CACHING));
        assertEquals("expected round 1 of 2 tensors, got: weightsync/1 round 2 2", e.getMessage());
    }

    @Test
    void theAllocatorIsCOrE() {
        assertEquals(WeightSyncExample.Allocator.CACHING, WeightSyncExample.Allocator.parse("c"));
        assertEquals("expandable_segments:True", WeightSyncExample.Allocator.parse("e").allocConf());
        var e = assertThrows(IllegalArgumentException.class, () -> WeightSyncExample.Allocator.parse("x"));
        assertEquals("the allocator is c (caching) or e (expandable), got 'x'", e.getMessage());
    }
}
