package org.cudaipc4j.launch;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The rendezvous protocol's bytes, as {@code docs/multinode.md} ("Rendezvous protocol") describes them: the
 * preamble, the frames and the HMAC proofs, each fixed part a {@link StructLayout} with named fields (Python's
 * {@code cudaipc4j.rendezvous} has the same formats as {@code struct.Struct}s; {@code interop-golden/launch/frames.json}
 * pins both). Everything is big-endian.
 */
final class Wire {
    private Wire() {}

    /** The first 8 bytes each side sends. */
    static final byte[] MAGIC = "C4J-RDZV".getBytes(StandardCharsets.US_ASCII);
    /** The protocol version this code speaks: peers with another major are refused, minors are compatible. */
    static final int MAJOR = 1;
    static final int MINOR = 0;
    /** The most bytes a frame may carry after its length field (type included). */
    static final int MAX_FRAME = 65536;
    /** The largest payload (NCCL's unique id is 128 bytes). */
    static final int MAX_PAYLOAD = 4096;
    /** The longest text of a REFUSE or FAULT frame, in UTF-8 bytes. */
    static final int MAX_TEXT = 1024;
    static final int NONCE_BYTES = 32;
    static final int MAC_BYTES = 32;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** What each side sends first: the magic, then its major and minor version. */
    static final StructLayout PREAMBLE = MemoryLayout.structLayout(octets(MAGIC.length, "magic"),
            U16.withName("major"), U16.withName("minor")).withName("PREAMBLE");
    /** Each frame's start: the length of type and body, then the type. */
    static final StructLayout FRAME_HEAD = MemoryLayout.structLayout(I32.withName("length"),
            ValueLayout.JAVA_BYTE.withName("type")).withName("FRAME_HEAD");
    /** CHALLENGE's body: rank 0's nonce. */
    static final StructLayout CHALLENGE_BODY = MemoryLayout.structLayout(octets(NONCE_BYTES, "nonce"))
            .withName("CHALLENGE");
    /** JOIN's body: who joins, with its nonce and proof ({@link #joinMac}). */
    static final StructLayout JOIN_BODY = MemoryLayout.structLayout(I32.withName("rank"), I32.withName("size"),
            I32.withName("nccl"), octets(NONCE_BYTES, "nonce"), octets(MAC_BYTES, "proof")).withName("JOIN");
    /** WELCOME's body: rank 0's proof ({@link #welcomeMac}). */
    static final StructLayout WELCOME_BODY = MemoryLayout.structLayout(octets(MAC_BYTES, "proof"))
            .withName("WELCOME");
    /** FAULT's body before its text. */
    static final StructLayout FAULT_HEAD = MemoryLayout.structLayout(I32.withName("rank"),
            ValueLayout.JAVA_BYTE.withName("kind")).withName("FAULT");
    /** BARRIER's body. */
    static final StructLayout BARRIER_BODY = MemoryLayout.structLayout(I32.withName("generation"))
            .withName("BARRIER");
    /** What the JOIN proof signs. */
    static final StructLayout JOIN_PROOF = MemoryLayout.structLayout(octets(4, "label"),
            octets(NONCE_BYTES, "serverNonce"), I32.withName("rank"), I32.withName("size"), I32.withName("nccl"),
            octets(NONCE_BYTES, "clientNonce")).withName("JOIN_PROOF");
    /** What the WELCOME proof signs. */
    static final StructLayout WELCOME_PROOF = MemoryLayout.structLayout(octets(7, "label"),
            octets(NONCE_BYTES, "clientNonce"), octets(NONCE_BYTES, "serverNonce")).withName("WELCOME_PROOF");

    static final int CHALLENGE = 1;
    static final int JOIN = 2;
    static final int WELCOME = 3;
    static final int START = 4;
    static final int REFUSE = 5;
    static final int HEARTBEAT = 6;
    static final int FAULT = 7;
    static final int GOODBYE = 8;
    static final int BARRIER = 9;

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A frame as read: its type and body. */
    record Frame(int type, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * A JOIN's fields.
     *
     * @param rank the joining rank
     * @param size the group's size it was started for
     * @param nccl its NCCL version
     * @param nonce its nonce
     * @param proof its proof
     */
    record Join(int rank, int size, int nccl, byte[] nonce, byte[] proof) {}

    /** A peer broke the protocol; the message is the line to tell it, when it can be told. */
    static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }
    }

    static byte[] preamble() {
        MemorySegment s = allocate(PREAMBLE);
        put(s, PREAMBLE, "magic", MAGIC);
        set(s, PREAMBLE, "major", MAJOR);
        set(s, PREAMBLE, "minor", MINOR);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Reads the other side's preamble: returns {major, minor}; a wrong magic is a {@link ProtocolException}.
     */
    static int[] readPreamble(InputStream in) throws IOException {
        byte[] b = new byte[(int) PREAMBLE.byteSize()];
        new DataInputStream(in).readFully(b);
        MemorySegment s = MemorySegment.ofArray(b);
        byte[] magic = octets(s, PREAMBLE, "magic");
        if (!Arrays.equals(magic, MAGIC)) {
            throw new ProtocolException("not the cudaipc4j rendezvous protocol (first bytes " + hex(magic) + ")");
        }
        return new int[] {number(s, PREAMBLE, "major"), number(s, PREAMBLE, "minor")};
    }

    static String version(int major, int minor) {
        return major + "." + minor;
    }

    /** One frame: {@link #FRAME_HEAD} (the length counts type and body), then the body. */
    static byte[] frame(int type, byte[] body) {
        byte[] frame = new byte[(int) FRAME_HEAD.byteSize() + body.length];
        MemorySegment s = MemorySegment.ofArray(frame);
        set(s, FRAME_HEAD, "length", 1 + body.length);
        set(s, FRAME_HEAD, "type", type);
        System.arraycopy(body, 0, frame, (int) FRAME_HEAD.byteSize(), body.length);
        return frame;
    }

    static byte[] frame(int type) {
        return frame(type, new byte[0]);
    }

    static byte[] textFrame(int type, String text) {
        return frame(type, truncate(text));
    }

    /** A JOIN frame. */
    static byte[] join(Join join) {
        MemorySegment s = allocate(JOIN_BODY);
        set(s, JOIN_BODY, "rank", join.rank());
        set(s, JOIN_BODY, "size", join.size());
        set(s, JOIN_BODY, "nccl", join.nccl());
        put(s, JOIN_BODY, "nonce", join.nonce());
        put(s, JOIN_BODY, "proof", join.proof());
        return frame(JOIN, s.toArray(ValueLayout.JAVA_BYTE));
    }

    /** The fields of a JOIN body, which {@link #JOIN_BODY} sized. */
    static Join parseJoin(byte[] body) {
        MemorySegment s = MemorySegment.ofArray(body);
        return new Join(number(s, JOIN_BODY, "rank"), number(s, JOIN_BODY, "size"), number(s, JOIN_BODY, "nccl"),
                octets(s, JOIN_BODY, "nonce"), octets(s, JOIN_BODY, "proof"));
    }

    static byte[] barrier(int generation) {
        MemorySegment s = allocate(BARRIER_BODY);
        set(s, BARRIER_BODY, "generation", generation);
        return frame(BARRIER, s.toArray(ValueLayout.JAVA_BYTE));
    }

    /** A BARRIER frame's generation; a body of another size is a {@link ProtocolException}. */
    static int parseBarrier(Frame f) throws ProtocolException {
        if (f.body().length != BARRIER_BODY.byteSize()) {
            throw new ProtocolException("BARRIER frame of " + f.body().length + " bytes");
        }
        return number(MemorySegment.ofArray(f.body()), BARRIER_BODY, "generation");
    }

    static byte[] fault(Fault f) {
        byte[] text = truncate(f.message());
        byte[] body = new byte[(int) FAULT_HEAD.byteSize() + text.length];
        MemorySegment s = MemorySegment.ofArray(body);
        set(s, FAULT_HEAD, "rank", f.rank());
        set(s, FAULT_HEAD, "kind", f.kind().code());
        System.arraycopy(text, 0, body, (int) FAULT_HEAD.byteSize(), text.length);
        return frame(FAULT, body);
    }

    static Fault parseFault(Frame f) throws ProtocolException {
        byte[] body = f.body();
        int head = (int) FAULT_HEAD.byteSize();
        if (body.length < head) {
            throw new ProtocolException("FAULT frame of " + body.length + " bytes is too short");
        }
        MemorySegment s = MemorySegment.ofArray(body);
        return new Fault(number(s, FAULT_HEAD, "rank"), Fault.Kind.of(number(s, FAULT_HEAD, "kind")),
                new String(body, head, body.length - head, StandardCharsets.UTF_8));
    }

    /** Reads one frame; a length of 0 or over {@link #MAX_FRAME} is a {@link ProtocolException}. */
    static Frame read(InputStream in) throws IOException {
        Frame f = readOrEnd(in);
        if (f == null) {
            throw new EOFException();
        }
        return f;
    }

    /** Reads one frame, or returns null at a clean end of stream before its first byte. */
    static Frame readOrEnd(InputStream in) throws IOException {
        byte[] head = new byte[(int) FRAME_HEAD.byteSize()];
        // The length first, refused before anything more is waited for.
        int lengthBytes = (int) FRAME_HEAD.byteOffset(MemoryLayout.PathElement.groupElement("type"));
        int got = in.readNBytes(head, 0, lengthBytes);
        if (got == 0) {
            return null;
        }
        if (got < lengthBytes) {
            throw new EOFException();
        }
        int length = length(head);
        DataInputStream d = new DataInputStream(in);
        d.readFully(head, lengthBytes, head.length - lengthBytes);
        byte[] body = new byte[length - 1];
        d.readFully(body);
        return new Frame(type(head), body);
    }

    /** The length field of a frame's head; 0 or over {@link #MAX_FRAME} is a {@link ProtocolException}. */
    static int length(byte[] head) throws ProtocolException {
        int length = number(MemorySegment.ofArray(head), FRAME_HEAD, "length");
        if (length < 1 || length > MAX_FRAME) {
            throw new ProtocolException("frame of " + Integer.toUnsignedString(length)
                    + " bytes refused: the limit is " + MAX_FRAME);
        }
        return length;
    }

    /** The type field of a frame's head. */
    static int type(byte[] head) {
        return number(MemorySegment.ofArray(head), FRAME_HEAD, "type");
    }

    static void write(OutputStream out, byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    static byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** The JOIN proof: HMAC-SHA256(secret, {@link #JOIN_PROOF}: "join", server nonce, rank, size, nccl, client nonce). */
    static byte[] joinMac(byte[] secret, byte[] serverNonce, int rank, int size, int nccl, byte[] clientNonce) {
        MemorySegment s = allocate(JOIN_PROOF);
        put(s, JOIN_PROOF, "label", ascii("join"));
        put(s, JOIN_PROOF, "serverNonce", serverNonce);
        set(s, JOIN_PROOF, "rank", rank);
        set(s, JOIN_PROOF, "size", size);
        set(s, JOIN_PROOF, "nccl", nccl);
        put(s, JOIN_PROOF, "clientNonce", clientNonce);
        return hmac(secret, s.toArray(ValueLayout.JAVA_BYTE));
    }

    /** The WELCOME proof: HMAC-SHA256(secret, {@link #WELCOME_PROOF}: "welcome", client nonce, server nonce). */
    static byte[] welcomeMac(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        MemorySegment s = allocate(WELCOME_PROOF);
        put(s, WELCOME_PROOF, "label", ascii("welcome"));
        put(s, WELCOME_PROOF, "clientNonce", clientNonce);
        put(s, WELCOME_PROOF, "serverNonce", serverNonce);
        return hmac(secret, s.toArray(ValueLayout.JAVA_BYTE));
    }

    static boolean sameMac(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    private static byte[] hmac(byte[] secret, byte[] message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // The JCA refuses an empty key; HMAC pads a key with zeros to its block (RFC 2104), so an empty secret
            // is the same key as 64 zero bytes, which Python's hmac module computes for b"".
            mac.init(new SecretKeySpec(secret.length == 0 ? new byte[64] : secret, "HmacSHA256"));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] truncate(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return b.length <= MAX_TEXT ? b : Arrays.copyOf(b, MAX_TEXT);
    }

    private static MemoryLayout octets(int count, String name) {
        return MemoryLayout.sequenceLayout(count, ValueLayout.JAVA_BYTE).withName(name);
    }

    private static MemorySegment allocate(StructLayout layout) {
        return MemorySegment.ofArray(new byte[(int) layout.byteSize()]);
    }

    /** Sets the integer field {@code name} (an i32, u16 or u8) of {@code layout} at the start of {@code s}. */
    private static void set(MemorySegment s, StructLayout layout, String name, int value) {
        MemoryLayout.PathElement field = MemoryLayout.PathElement.groupElement(name);
        long offset = layout.byteOffset(field);
        switch (layout.select(field)) {
            case ValueLayout.OfInt i -> s.set(i, offset, value);
            case ValueLayout.OfShort h -> s.set(h, offset, (short) value);
            case ValueLayout.OfByte b -> s.set(b, offset, (byte) value);
            default -> throw new IllegalArgumentException(name + " is no integer field of " + layout);
        }
    }

    /** The integer field {@code name} (an i32; a u16 or u8 unsigned) of {@code layout} at the start of {@code s}. */
    private static int number(MemorySegment s, StructLayout layout, String name) {
        MemoryLayout.PathElement field = MemoryLayout.PathElement.groupElement(name);
        long offset = layout.byteOffset(field);
        return switch (layout.select(field)) {
            case ValueLayout.OfInt i -> s.get(i, offset);
            case ValueLayout.OfShort h -> Short.toUnsignedInt(s.get(h, offset));
            case ValueLayout.OfByte b -> Byte.toUnsignedInt(s.get(b, offset));
            default -> throw new IllegalArgumentException(name + " is no integer field of " + layout);
        };
    }

    /** Puts {@code value}, exactly the byte field {@code name}'s size, into it. */
    private static void put(MemorySegment s, StructLayout layout, String name, byte[] value) {
        MemoryLayout.PathElement field = MemoryLayout.PathElement.groupElement(name);
        long size = layout.select(field).byteSize();
        if (value.length != size) {
            throw new IllegalArgumentException(name + " of " + layout.name().orElseThrow() + " takes " + size
                    + " bytes, got " + value.length);
        }
        MemorySegment.copy(value, 0, s, ValueLayout.JAVA_BYTE, layout.byteOffset(field), value.length);
    }

    private static byte[] octets(MemorySegment s, StructLayout layout, String name) {
        MemoryLayout.PathElement field = MemoryLayout.PathElement.groupElement(name);
        return s.asSlice(layout.byteOffset(field), layout.select(field).byteSize()).toArray(ValueLayout.JAVA_BYTE);
    }

    /** An NCCL version number as NCCL prints it: 22809 is 2.28.9, 2708 (before 2.9) is 2.7.8. */
    static String ncclVersion(int code) {
        if (code < 0) {
            return "unknown (" + code + ")";
        }
        if (code < 10000) {
            return code / 1000 + "." + code % 1000 / 100 + "." + code % 100;
        }
        return code / 10000 + "." + code % 10000 / 100 + "." + code % 100;
    }

    /** {@code host:port}, an IPv6 address in brackets. */
    static String where(InetSocketAddress a) {
        return where(a.getHostString(), a.getPort());
    }

    static String where(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }
}
