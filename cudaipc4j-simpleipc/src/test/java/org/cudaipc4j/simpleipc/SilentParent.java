package org.cudaipc4j.simpleipc;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.coord.SharedSegment;

/**
 * A parent that starts one {@link SimpleIpcChild} (its output into the file {@code args[0]}), sends it its settings
 * when {@code args[1]} is {@code settings}, prints {@code CHILD <pid>} and then sends nothing more: the tests kill it.
 * Before that it names what a parent names before its block exists, a segment and a phase-log folder, and prints
 * {@code NAMED <segment> <folder>}: the child of the killed parent must remove them.
 */
public final class SilentParent {
    private SilentParent() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Process child = new ProcessBuilder(JvmCommand.of(SimpleIpcChild.class.getName(), List.of("0")))
                .redirectErrorStream(true).redirectOutput(new File(args[0])).start();
        OutputStream in = child.getOutputStream();
        if (args[1].equals("settings")) {
            SimpleIpcOptions d = SimpleIpcOptions.defaults();
            in.write(ChildSettings.Frame.CODEC.encode(new ChildSettings(0, SimpleIpcOptions.BackendKind.HOST, null,
                    null, new SimpleIpcOptions(4096, 1, List.of(), 1, SimpleIpcOptions.BackendKind.HOST, 2,
                            Duration.ofSeconds(60), false, -1, d.kernel(), d.verify(), d.ipc(), d.sync(),
                            d.hostWaitTimeout()))));
            in.flush();
        }
        SharedSegment segment = SharedSegment.create(4096);
        PhaseFiles phases = new PhaseFiles(true, 1);
        System.out.println("NAMED " + segment.path() + " " + phases.file(0).getParent());
        System.out.println("CHILD " + child.pid());
        System.out.flush();
        child.waitFor(); // killed first
    }
}
