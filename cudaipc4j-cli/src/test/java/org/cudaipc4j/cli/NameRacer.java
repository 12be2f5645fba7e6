package org.cudaipc4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stranger who races a run for its names. Every {@code cudaipc4j-*} name in the command line or the environment of
 * a process whose command line holds {@code args[0]} (every process of the run) is made at once in the folders
 * {@code args[1..]} (where the run makes its names), as a file of one byte, given to user nobody where this runs as
 * root. Prints {@code READY}, then {@code TOOK <path>} for each file made; ends when its standard input closes.
 */
public final class NameRacer {
    private static final Pattern NAME = Pattern.compile("cudaipc4j-[A-Za-z0-9_.-]+");
    private static final int NOBODY = 65534;

    private NameRacer() {}

    public static void main(String[] args) throws Exception {
        String marker = args[0];
        List<Path> folders = List.of(args).subList(1, args.length).stream().map(Path::of).toList();
        Thread.ofPlatform().daemon().start(() -> {
            try (InputStream in = System.in) {
                in.transferTo(java.io.OutputStream.nullOutputStream());
            } catch (IOException e) {
                // closed
            }
            System.out.flush();
            System.exit(0);
        });
        boolean root = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
        long self = ProcessHandle.current().pid();
        Set<String> seen = new HashSet<>();
        System.out.println("READY");
        System.out.flush();
        while (true) {
            for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
                String cmdline = read(p.pid(), "cmdline");
                if (p.pid() == self || !cmdline.contains(marker)) {
                    continue;
                }
                Matcher m = NAME.matcher(cmdline + "\n" + read(p.pid(), "environ"));
                while (m.find()) {
                    if (seen.add(m.group())) {
                        take(folders, m.group(), root);
                    }
                }
            }
            Thread.sleep(1);
        }
    }

    private static void take(List<Path> folders, String name, boolean root) throws IOException {
        for (Path folder : folders) {
            Path file = folder.resolve(name);
            try {
                Files.write(Files.createFile(file), new byte[] {1});
            } catch (FileAlreadyExistsException late) {
                continue; // made before us
            }
            if (root) {
                Files.setAttribute(file, "unix:uid", NOBODY);
            }
            System.out.println("TOOK " + file);
            System.out.flush();
        }
    }

    private static String read(long pid, String what) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), what)), StandardCharsets.UTF_8)
                    .replace('\0', ' ');
        } catch (IOException e) {
            return ""; // gone, or not readable
        }
    }
}
