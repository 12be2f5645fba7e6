package org.cudaipc4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Another process for {@link StreamValueGpuTest}: {@code FILE OFFSET VALUE} maps FILE and stores VALUE. */
public final class WordPoke {
    private WordPoke() {}

    public static void main(String[] args) throws Exception {
        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofConfined()) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            m.set(ValueLayout.JAVA_INT, Long.parseLong(args[1]), Integer.parseInt(args[2]));
        }
    }
}
