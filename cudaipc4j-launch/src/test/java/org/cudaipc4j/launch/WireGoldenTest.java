package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

/**
 * The rendezvous protocol's formats and bytes as {@code interop-golden/launch/frames.json} pins them, which Python's
 * {@code tests/test_rendezvous.py} checks too: every layout field by field, every frame and proof byte for byte.
 */
class WireGoldenTest {
    private static final HexFormat HEX = HexFormat.of();

    @SuppressWarnings("unchecked")
    private static Map<String, Object> golden(String key) throws IOException {
        Path root = ProjectRoot.find().orElseThrow(() -> new IllegalStateException("not inside the checkout"));
        String text = Files.readString(root.resolve("interop-golden/launch/frames.json"), StandardCharsets.US_ASCII);
        return (Map<String, Object>) ((Map<String, Object>) Json.parse(text)).get(key);
    }

    /** A field as the golden file writes it: i32 or u32 (an int), u16, u8, or Ns (N bytes). */
    private static List<String> fields(StructLayout layout) {
        List<String> fields = new ArrayList<>();
        for (MemoryLayout m : layout.memberLayouts()) {
            String kind = switch (m) {
                case ValueLayout.OfInt i -> "i32";
                case ValueLayout.OfShort h -> "u16";
                case ValueLayout.OfByte b -> "u8";
                case SequenceLayout q when q.elementLayout().byteSize() == 1 -> q.elementCount() + "s";
                default -> m.toString();
            };
            fields.add(m.name().orElseThrow() + " " + kind);
        }
        return fields;
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyLayoutIsTheTablesFieldByField() throws IOException {
        Map<String, StructLayout> layouts = new LinkedHashMap<>();
        for (StructLayout l : List.of(Wire.PREAMBLE, Wire.FRAME_HEAD, Wire.CHALLENGE_BODY, Wire.JOIN_BODY,
                Wire.WELCOME_BODY, Wire.FAULT_HEAD, Wire.BARRIER_BODY, Wire.JOIN_PROOF, Wire.WELCOME_PROOF)) {
            layouts.put(l.name().orElseThrow(), l);
        }
        Map<String, Object> table = golden("layouts");
        assertEquals(table.keySet(), layouts.keySet());
        for (Map.Entry<String, Object> e : table.entrySet()) {
            List<String> expected = new ArrayList<>();
            for (List<String> field : (List<List<String>>) e.getValue()) {
                expected.add(field.get(0) + " " + field.get(1).replace("u32", "i32")); // both an int here
            }
            assertEquals(expected, fields(layouts.get(e.getKey())), e.getKey());
        }
        assertEquals(12, Wire.PREAMBLE.byteSize());
        assertEquals(5, Wire.FRAME_HEAD.byteSize());
        assertEquals(76, Wire.JOIN_BODY.byteSize());
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyFrameAndProofIsTheFilesBytes() throws IOException {
        Map<String, Object> in = golden("inputs");
        Map<String, Object> want = golden("bytes");
        byte[] serverNonce = HEX.parseHex((String) in.get("server_nonce"));
        byte[] clientNonce = HEX.parseHex((String) in.get("client_nonce"));
        byte[] proof = HEX.parseHex((String) in.get("proof"));
        byte[] secret = HEX.parseHex((String) in.get("secret"));
        int rank = ((Long) in.get("rank")).intValue();
        int size = ((Long) in.get("size")).intValue();
        int nccl = ((Long) in.get("nccl")).intValue();
        Map<String, Object> fault = (Map<String, Object>) in.get("fault");
        Map<String, byte[]> got = new LinkedHashMap<>();
        got.put("preamble", Wire.preamble());
        got.put("challenge", Wire.frame(Wire.CHALLENGE, serverNonce));
        got.put("join", Wire.join(new Wire.Join(rank, size, nccl, clientNonce, proof)));
        got.put("welcome", Wire.frame(Wire.WELCOME, proof));
        got.put("start", Wire.frame(Wire.START, HEX.parseHex((String) in.get("payload"))));
        got.put("refuse", Wire.textFrame(Wire.REFUSE, (String) in.get("refusal")));
        got.put("heartbeat", Wire.frame(Wire.HEARTBEAT));
        got.put("fault", Wire.fault(new Fault(((Long) fault.get("rank")).intValue(),
                Fault.Kind.valueOf((String) fault.get("kind")), (String) fault.get("message"))));
        got.put("goodbye", Wire.frame(Wire.GOODBYE));
        got.put("barrier", Wire.barrier(((Long) in.get("generation")).intValue()));
        got.put("join_proof", Wire.joinMac(secret, serverNonce, rank, size, nccl, clientNonce));
        got.put("welcome_proof", Wire.welcomeMac(secret, clientNonce, serverNonce));
        assertEquals(want.keySet(), got.keySet());
        for (Map.Entry<String, byte[]> e : got.entrySet()) {
            assertEquals(want.get(e.getKey()), HEX.formatHex(e.getValue()), e.getKey());
        }
    }

    @Test
    void framesReadBackAsTheyWereWritten() throws IOException {
        byte[] nonce = new byte[Wire.NONCE_BYTES];
        byte[] proof = new byte[Wire.MAC_BYTES];
        Arrays.fill(proof, (byte) 7);
        Wire.Frame join = Wire.read(new ByteArrayInputStream(Wire.join(new Wire.Join(3, 4, -1, nonce, proof))));
        assertEquals(Wire.JOIN, join.type());
        Wire.Join parsed = Wire.parseJoin(join.body());
        assertEquals(List.of(3, 4, -1), List.of(parsed.rank(), parsed.size(), parsed.nccl()));
        assertArrayEquals(nonce, parsed.nonce());
        assertArrayEquals(proof, parsed.proof());
        assertEquals(9, Wire.parseBarrier(Wire.read(new ByteArrayInputStream(Wire.barrier(9)))));
        Fault fault = new Fault(5, Fault.Kind.LEFT, "gone");
        assertEquals(fault, Wire.parseFault(Wire.read(new ByteArrayInputStream(Wire.fault(fault)))));
        assertEquals(List.of(1, 0), Arrays.stream(Wire.readPreamble(new ByteArrayInputStream(Wire.preamble())))
                .boxed().toList());
    }

    @Test
    void malformedFramesAreRefused() {
        assertEquals("BARRIER frame of 3 bytes", assertThrows(Wire.ProtocolException.class,
                () -> Wire.parseBarrier(new Wire.Frame(Wire.BARRIER, new byte[3]))).getMessage());
        assertEquals("FAULT frame of 4 bytes is too short", assertThrows(Wire.ProtocolException.class,
                () -> Wire.parseFault(new Wire.Frame(Wire.FAULT, new byte[4]))).getMessage());
        assertEquals("frame of 65537 bytes refused: the limit is 65536", assertThrows(Wire.ProtocolException.class,
                () -> Wire.read(new ByteArrayInputStream(HEX.parseHex("00010001")))).getMessage());
        assertEquals("frame of 0 bytes refused: the limit is 65536", assertThrows(Wire.ProtocolException.class,
                () -> Wire.read(new ByteArrayInputStream(HEX.parseHex("00000000")))).getMessage());
        assertEquals("not the cudaipc4j rendezvous protocol (first bytes 474554202f204854)",
                assertThrows(Wire.ProtocolException.class, () -> Wire.readPreamble(new ByteArrayInputStream(
                        "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII)))).getMessage());
        assertThrows(EOFException.class, () -> Wire.read(new ByteArrayInputStream(HEX.parseHex("000000"))));
        assertThrows(EOFException.class, () -> Wire.read(new ByteArrayInputStream(HEX.parseHex("0000000209"))));
        assertThrows(EOFException.class, () -> Wire.read(new ByteArrayInputStream(new byte[0])));
    }
}
