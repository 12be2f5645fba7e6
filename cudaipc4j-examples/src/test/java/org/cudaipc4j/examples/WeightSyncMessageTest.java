package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class WeightSyncMessageTest {
    private static final String SUM = "0123456789abcdef";

    @Test
    void everyMessageReadsBackAsWritten() {
        for (WeightSyncMessage m : List.of(new WeightSyncMessage.Hello(4321, 100), new WeightSyncMessage.Round(7, 100),
                new WeightSyncMessage.Ok(7), new WeightSyncMessage.End(), new WeightSyncMessage.Bye(),
                new WeightSyncMessage.Memory(0, 512, 0), new WeightSyncMessage.Ready(77),
                new WeightSyncMessage.Export("layer099.float64"), new WeightSyncMessage.Mapped(100),
                new WeightSyncMessage.Checksum("layer000.float32", -2), new WeightSyncMessage.Checksum("w", 0),
                new WeightSyncMessage.Tensor("layer002.float16", Long.MIN_VALUE, "{\"kind\": \"torch\"}"))) {
            assertEquals(m, WeightSyncMessage.parse(m.format()));
        }
        var t = (WeightSyncMessage.Tensor) WeightSyncMessage.parse(
                "weightsync/2 tensor layer001.bfloat16 " + SUM + " {\"kind\": \"torch\", \"x\": \"a b\"}");
        assertEquals("layer001.bfloat16", t.name());
        assertEquals(0x0123_4567_89ab_cdefL, t.wsum64());
        assertEquals("{\"kind\": \"torch\", \"x\": \"a b\"}", t.descriptorJson(), "the descriptor keeps its spaces");
        assertEquals("weightsync/2 tensor layer001.bfloat16 " + SUM + " {\"kind\": \"torch\", \"x\": \"a b\"}",
                t.format());
    }

    @Test
    void theLinesOfThePythonTrainerParse() {
        // As weight_sync.py writes them: " ".join([VERSION, *fields]).
        assertEquals(new WeightSyncMessage.Hello(99, 3), WeightSyncMessage.parse("weightsync/2 hello 99 3"));
        assertEquals(new WeightSyncMessage.Memory(0, 0, 0), WeightSyncMessage.parse("weightsync/2 memory 0 0 0"));
        // Its wsum64 as f"{s:016x}" of an unsigned int: above 2^63 it reads back as a negative long.
        assertEquals(new WeightSyncMessage.Tensor("layer000.float32", -1, "{\"kind\": \"torch\"}"),
                WeightSyncMessage.parse("weightsync/2 tensor layer000.float32 ffffffffffffffff {\"kind\": \"torch\"}"));
        assertEquals(new WeightSyncMessage.Tensor("w", 255, "{}"),
                WeightSyncMessage.parse("weightsync/2 tensor w 00000000000000ff {}"));
    }

    @Test
    void theLinesOfTheJavaTrainerAndThePythonServer() {
        assertEquals("weightsync/2 checksum layer001.bfloat16 fffffffffffffffe",
                new WeightSyncMessage.Checksum("layer001.bfloat16", -2).format());
        assertEquals("weightsync/2 export layer001.bfloat16", new WeightSyncMessage.Export("layer001.bfloat16").format());
        // As weight_sync.py's server writes them.
        assertEquals(new WeightSyncMessage.Ready(4321), WeightSyncMessage.parse("weightsync/2 ready 4321"));
        assertEquals(new WeightSyncMessage.Mapped(3), WeightSyncMessage.parse("weightsync/2 mapped 3"));
        assertEquals(new WeightSyncMessage.Ok(1), WeightSyncMessage.parse("weightsync/2 ok 1"));
    }

    @Test
    void badLinesAreRefusedInOneLineNamingTheProblem() {
        assertMessage("the other side closed the pipe", null);
        assertMessage("not a weightsync/2 message: weightsync/1 hello 1 2", "weightsync/1 hello 1 2");
        assertMessage("a weightsync/2 message without a type: weightsync/2", "weightsync/2");
        assertMessage("an unknown weightsync/2 message type 'bonjour'", "weightsync/2 bonjour 1");
        assertMessage("a weightsync/2 message with 1 field(s), 2 expected", "weightsync/2 round 3");
        assertMessage("a weightsync/2 message with 1 field(s), 0 expected", "weightsync/2 end now");
        assertMessage("a weightsync/2 round message with a bad number", "weightsync/2 round x 100");
        assertMessage("a tensor line has a name, a wsum64 and a descriptor", "weightsync/2 tensor w " + SUM);
        assertMessage("a checksum has 16 hex digits, got 'abcd'", "weightsync/2 tensor w abcd {}");
        // A weightsync/1 tensor line's sha256, under the new version word: refused, not misread.
        assertMessage("a checksum has 16 hex digits, got '" + "ab".repeat(32) + "'",
                "weightsync/2 tensor w " + "ab".repeat(32) + " {}");
        assertMessage("a checksum has 16 hex digits, got 'abcd'", "weightsync/2 checksum w abcd");
        assertMessage("a checksum has 16 hex digits, got '-000000000000001'", "weightsync/2 checksum w -000000000000001");
        assertMessage("a weightsync/2 message with 1 field(s), 2 expected", "weightsync/2 checksum w");
        assertMessage("a weightsync/2 message with 2 field(s), 1 expected", "weightsync/2 export a b");
        assertMessage("a weightsync/2 ready message with a bad number", "weightsync/2 ready me");
    }

    private static void assertMessage(String expected, String line) {
        var e = assertThrows(IllegalArgumentException.class, () -> WeightSyncMessage.parse(line));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        assertEquals(-1, e.getMessage().indexOf('\n'), "one line");
    }

    @Test
    void theServerRefusesATrainerThatSkipsARoundBeforeTouchingCuda() {
        // The leases start first (a small JVM, no GPU); the round check comes before any descriptor is opened.
        var in = new BufferedReader(new StringReader("weightsync/2 hello 1 2\nweightsync/2 round 2 2\n"));
        var e = assertThrows(IllegalStateException.class, () -> WeightSyncExample.serve(in, new StringWriter(),
                WeightSyncExample.Allocator.CACHING));
        assertEquals("expected round 1 of 2 tensors, got: weightsync/2 round 2 2", e.getMessage());
    }

    @Test
    void theAllocatorIsCOrE() {
        assertEquals(WeightSyncExample.Allocator.CACHING, WeightSyncExample.Allocator.parse("c"));
        assertEquals("expandable_segments:True", WeightSyncExample.Allocator.parse("e").allocConf());
        var e = assertThrows(IllegalArgumentException.class, () -> WeightSyncExample.Allocator.parse("x"));
        assertEquals("the allocator is c (caching) or e (expandable), got 'x'", e.getMessage());
    }
}
