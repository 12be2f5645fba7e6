package org.cudaipc4j.tool;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Standard output and error that reach the file descriptor one whole line per {@code write(2)}.
 *
 * <p>Children inherit the parent's stdout and stderr, so several processes write to one pipe or file at once. A
 * JDK {@code PrintStream} may hand a line to the descriptor in pieces ({@code printf} writes each piece, and
 * {@code println} writes the text and the line separator separately), and other processes' pieces then land in
 * between. Writing complete lines only, each in a single call with the lines that came with it, keeps lines whole
 * (a pipe write of up to 4096 bytes is atomic).
 */
public final class LineAtomicOutput extends OutputStream {
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFSOCK = 0140000;

    private final OutputStream target;
    private byte[] line = new byte[256];
    private int length;

    /** {@code target} should write each call in one piece, as a {@link FileOutputStream} does. */
    LineAtomicOutput(OutputStream target) {
        this.target = target;
    }

    /** Replaces {@link System#out} and {@link System#err} with line-atomic streams; call first thing in main. */
    public static void install() {
        Charset stdout = Charset.forName(System.getProperty("stdout.encoding", "UTF-8"), Charset.defaultCharset());
        Charset stderr = Charset.forName(System.getProperty("stderr.encoding", "UTF-8"), Charset.defaultCharset());
        System.setOut(new PrintStream(new LineAtomicOutput(new FileOutputStream(FileDescriptor.out)), true, stdout));
        System.setErr(new PrintStream(new LineAtomicOutput(new FileOutputStream(FileDescriptor.err)), true, stderr));
    }

    /**
     * {@return whether standard output is a pipe or a socket} Where it is, a write can fail only because its reader
     * is gone (a closed pipe), which a Unix tool meets as SIGPIPE and ends silently; a file's write fails for want of
     * room, an error worth a line.
     */
    public static boolean standardOutputIsPipe() {
        try {
            // The file type bits of st_mode, through the descriptor's /proc link (an anonymous pipe has no path).
            int type = (Integer) Files.getAttribute(Path.of("/proc/self/fd/1"), "unix:mode") & S_IFMT;
            return type == S_IFIFO || type == S_IFSOCK;
        } catch (IOException | RuntimeException e) {
            return false; // no /proc or no unix attribute view: reported as any failed write
        }
    }

    @Override
    public synchronized void write(int b) throws IOException {
        append((byte) b);
        if (b == '\n') {
            writeLine();
        }
    }

    /** Complete lines in {@code b} reach the descriptor in one call, with any buffered start of the first. */
    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        int end = off + len;
        int lastNewline = -1;
        for (int i = end - 1; i >= off; i--) {
            if (b[i] == '\n') {
                lastNewline = i;
                break;
            }
        }
        if (lastNewline < 0) {
            for (int i = off; i < end; i++) {
                append(b[i]);
            }
            return;
        }
        if (length == 0) {
            target.write(b, off, lastNewline + 1 - off);
        } else {
            for (int i = off; i <= lastNewline; i++) {
                append(b[i]);
            }
            writeLine();
        }
        for (int i = lastNewline + 1; i < end; i++) {
            append(b[i]);
        }
    }

    /** A partial line stays buffered until its newline, so that it is written whole. */
    @Override
    public void flush() {}

    @Override
    public synchronized void close() throws IOException {
        if (length > 0) {
            writeLine();
        }
        target.flush();
    }

    private void append(byte b) {
        if (length == line.length) {
            line = Arrays.copyOf(line, length * 2);
        }
        line[length++] = b;
    }

    private void writeLine() throws IOException {
        target.write(line, 0, length);
        length = 0;
    }
}
