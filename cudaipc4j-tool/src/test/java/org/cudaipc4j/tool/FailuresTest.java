package org.cudaipc4j.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** The words of a failure: one line, and a file failure's reason where the JDK gives only the file's name. */
class FailuresTest {
    @Test
    void aFileFailureSaysWhy() {
        assertEquals("permission denied", Failures.fileReason(new AccessDeniedException("/etc/shadow")));
        assertEquals("no such file or folder", Failures.fileReason(new NoSuchFileException("/x")));
        assertEquals("/dev/null is in the way (not a folder)",
                Failures.fileReason(new FileAlreadyExistsException("/dev/null")));
        assertEquals("Not a directory", Failures.fileReason(new FileSystemException("/a/b", null, "Not a directory")));
        assertEquals("not UTF-8 text", Failures.fileReason(new MalformedInputException(1)));
        assertEquals("disk full", Failures.fileReason(new IOException("disk full")));
    }

    @Test
    void oneLineAddsEachCauseItDoesNotHoldYet() {
        Exception e = new IllegalStateException("cannot write the report to r", new IOException("disk\nfull"));
        assertEquals("cannot write the report to r: disk full", Failures.oneLine(e));
        assertEquals("IllegalStateException", Failures.oneLine(new IllegalStateException()));
    }

    @Test
    void aCommandThatCannotRunHereSaysSoInTheWaivedLine() {
        java.io.StringWriter text = new java.io.StringWriter();
        java.io.PrintWriter err = new java.io.PrintWriter(text);
        assertEquals(java.util.OptionalInt.empty(), Failures.waiveIf(err, "bench: ", java.util.Optional.empty()));
        assertEquals("", text.toString(), "nothing said where it can run");
        assertEquals(java.util.OptionalInt.of(ExitCodes.WAIVED),
                Failures.waiveIf(err, "bench: ", java.util.Optional.of("no CUDA device\nfound")));
        assertEquals(Failures.WAIVED_PREFIX + "bench: no CUDA device found" + System.lineSeparator(), text.toString());
    }
}
