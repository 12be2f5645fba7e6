package org.cudaipc4j.launch;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The rendezvous protocol's bytes, as {@code docs/multinode.md} ("Rendezvous protocol") describes them: the
 * preamble, the frames and the HMAC proofs. Everything is big-endian.
 */
final class Wire {
    private Wire() {}

    /** The first 8 bytes each side sends. */
    static final byte[] MAGIC = "C4J-RDZV".getBytes(StandardCharsets.US_ASCII);
    /** The protocol version this code speaks: peers with another major are refused, minors are compatible. */
    static final int MAJOR = 1;
    static final int MINOR = 0;
    static final int PREAMBLE_BYTES = MAGIC.length + 4;
    /** The most bytes a frame may carry after its length field (type included). */
    static final int MAX_FRAME = 65536;
    /** The largest payload (NCCL's unique id is 128 bytes). */
    static final int MAX_PAYLOAD = 4096;
    /** The longest text of a REFUSE or FAULT frame, in UTF-8 bytes. */
    static final int MAX_TEXT = 1024;
    static final int NONCE_BYTES = 32;
    static final int MAC_BYTES = 32;

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
        ByteBuffer buffer() {
            return ByteBuffer.wrap(body);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** A peer broke the protocol; the message is the line to tell it, when it can be told. */
    static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }
    }

    static byte[] preamble() {
        return ByteBuffer.allocate(PREAMBLE_BYTES).put(MAGIC).putShort((short) MAJOR).putShort((short) MINOR).array();
    }

    /**
     * Reads the other side's preamble: returns {major, minor}; a wrong magic is a {@link ProtocolException}.
     */
    static int[] readPreamble(InputStream in) throws IOException {
        byte[] b = new byte[PREAMBLE_BYTES];
        new DataInputStream(in).readFully(b);
        if (!Arrays.equals(b, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new ProtocolException("not the cudaipc4j rendezvous protocol (first bytes "
                    + hex(Arrays.copyOf(b, MAGIC.length)) + ")");
        }
        ByteBuffer v = ByteBuffer.wrap(b, MAGIC.length, 4);
        return new int[] {Short.toUnsignedInt(v.getShort()), Short.toUnsignedInt(v.getShort())};
    }

    static String version(int major, int minor) {
        return major + "." + minor;
    }

    /** One frame: u32 length (type + body), u8 type, body. */
    static byte[] frame(int type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).putInt(1 + body.length).put((byte) type).put(body).array();
    }

    static byte[] frame(int type) {
        return frame(type, new byte[0]);
    }

    static byte[] textFrame(int type, String text) {
        return frame(type, truncate(text));
    }

    static byte[] fault(Fault f) {
        byte[] text = truncate(f.message());
        return frame(FAULT, ByteBuffer.allocate(5 + text.length).putInt(f.rank()).put((byte) f.kind().code())
                .put(text).array());
    }

    static Fault parseFault(Frame f) throws ProtocolException {
        ByteBuffer b = f.buffer();
        if (b.remaining() < 5) {
            throw new ProtocolException("FAULT frame of " + b.remaining() + " bytes is too short");
        }
        int rank = b.getInt();
        Fault.Kind kind = Fault.Kind.of(b.get());
        byte[] text = new byte[b.remaining()];
        b.get(text);
        return new Fault(rank, kind, new String(text, StandardCharsets.UTF_8));
    }

    /** Reads one frame; a length of 0 or over {@link #MAX_FRAME} is a {@link ProtocolException}. */
    static Frame read(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        return readBody(d, d.readInt());
    }

    private static Frame readBody(DataInputStream d, int length) throws IOException {
        if (length < 1 || length > MAX_FRAME) {
            throw new ProtocolException("frame of " + Integer.toUnsignedString(length)
                    + " bytes refused: the limit is " + MAX_FRAME);
        }
        int type = d.readUnsignedByte();
        byte[] body = new byte[length - 1];
        d.readFully(body);
        return new Frame(type, body);
    }

    /** Reads one frame, or returns null at a clean end of stream before its first byte. */
    static Frame readOrEnd(InputStream in) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        DataInputStream d = new DataInputStream(in);
        int length = first << 24 | d.readUnsignedByte() << 16 | d.readUnsignedShort();
        return readBody(d, length);
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

    /** The JOIN proof: HMAC-SHA256(secret, "join" ‖ server nonce ‖ rank ‖ size ‖ nccl ‖ client nonce). */
    static byte[] joinMac(byte[] secret, byte[] serverNonce, int rank, int size, int nccl, byte[] clientNonce) {
        return hmac(secret, ByteBuffer.allocate(4 + 2 * NONCE_BYTES + 12).put(ascii("join")).put(serverNonce)
                .putInt(rank).putInt(size).putInt(nccl).put(clientNonce).array());
    }

    /** The WELCOME proof: HMAC-SHA256(secret, "welcome" ‖ client nonce ‖ server nonce). */
    static byte[] welcomeMac(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return hmac(secret, ByteBuffer.allocate(7 + 2 * NONCE_BYTES).put(ascii("welcome")).put(clientNonce)
                .put(serverNonce).array());
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
