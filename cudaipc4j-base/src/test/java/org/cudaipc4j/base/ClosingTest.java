package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClosingTest {
    @Test
    void closeAllTriesEachInOrderAndThrowsTheFirstFailure() {
        List<String> closed = new ArrayList<>();
        IllegalStateException first = new IllegalStateException("first");
        IOException second = new IOException("second");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Closing.closeAll(
                () -> closed.add("a"),
                () -> {
                    closed.add("b");
                    throw first;
                },
                null,
                () -> {
                    closed.add("c");
                    throw second;
                },
                () -> closed.add("d")));
        assertEquals(List.of("a", "b", "c", "d"), closed);
        assertSame(first, thrown);
        assertEquals(1, thrown.getSuppressed().length);
        assertSame(second, thrown.getSuppressed()[0].getCause(), "a checked failure is wrapped");
    }

    @Test
    void aCheckedFailureAloneIsWrapped() {
        IOException io = new IOException("disk");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Closing.closeAll(() -> {
            throw io;
        }));
        assertSame(io, thrown.getCause());
    }

    @Test
    void closeQuietlySwallowsTheFailure() {
        Closing.closeQuietly(() -> {
            throw new IOException("ignored");
        });
    }

    @Test
    void closeAfterAttachesTheCloseFailureToTheOneThrown() {
        RuntimeException failure = new RuntimeException("use");
        IllegalStateException close = new IllegalStateException("close");
        Closing.closeAfter(() -> {
            throw close;
        }, failure);
        assertArrayEquals(new Throwable[] {close}, failure.getSuppressed());
    }

    @Test
    void firstOfKeepsTheFirstAndSuppressesTheRest() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b");
        assertSame(a, Closing.firstOf(null, a));
        assertSame(a, Closing.firstOf(a, b));
        assertArrayEquals(new Throwable[] {b}, a.getSuppressed());
    }
}
