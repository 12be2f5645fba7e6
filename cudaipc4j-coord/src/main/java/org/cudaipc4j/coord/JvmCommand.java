package org.cudaipc4j.coord;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Builds the command line of a fresh JVM like this one: the same java binary, this JVM's own options (less debugger
 * agents and archive writing), native access, and the class path, then a main class and its arguments. For
 * {@link Supervisor#start} and for any helper JVM that should run as the group's children do.
 *
 * <p>A JVM that runs on the module path passes it on: the module path, the modules it resolved from it, its module
 * options and native access for its modules; a main class of a named module is then started with {@code -m
 * module/class}. The module is found through the class, or named by the caller as {@code module/class}; a main class
 * that can be found neither way is refused at once rather than left to fail in the child.
 */
public final class JvmCommand {
    private static final Set<String> OPTIONS_WITH_VALUE = Set.of("-cp", "-classpath", "--class-path", "-p",
            "--module-path", "--upgrade-module-path", "--add-modules", "--limit-modules", "--add-reads",
            "--add-exports", "--add-opens", "--patch-module", "--enable-native-access", "--source");
    private static final List<String> EXCLUDED_PREFIXES = List.of("-agentlib:jdwp", "-Xrunjdwp", "-Xdebug",
            "-Xnoagent", "-Xshare:dump", "-XX:AOTCacheOutput", "-XX:AOTConfiguration", "-XX:AOTMode=record",
            "-XX:AOTMode=create", "-XX:ArchiveClassesAtExit", "-XX:DumpLoadedClassList", "-Djava.class.path=",
            // A flight recording is the parent's: a child given it would write over the parent's file and say so on
            // its standard output, where some children answer their parent.
            "-XX:StartFlightRecording", "-XX:FlightRecorderOptions");

    /** The option that keeps a child JVM from writing its performance-data file. */
    public static final String NO_PERF_DATA = "-XX:-UsePerfData";

    private JvmCommand() {}

    /**
     * {@link #base()}, then {@code mainClass} and {@code args}.
     *
     * @param mainClass the child's main class, or {@code module/class}
     * @param args the child's arguments
     * @return the command line
     * @throws CoordinationException when the child could not find its main class (see the class comment)
     */
    public static List<String> of(String mainClass, List<String> args) {
        return of(List.of(), mainClass, args);
    }

    /**
     * {@link #base()}, then {@code jvmOptions} of this child alone, {@code mainClass} and {@code args}.
     *
     * @param jvmOptions JVM options for this child only
     * @param mainClass the child's main class, or {@code module/class}
     * @param args the child's arguments
     * @return the command line
     * @throws CoordinationException when the child could not find its main class (see the class comment)
     */
    public static List<String> of(List<String> jvmOptions, String mainClass, List<String> args) {
        return from(base(), jvmOptions, mainClass, args);
    }

    /**
     * {@return {@code base} (from {@link #base()}, taken once for several children: it reads this process's command
     * line), then {@code jvmOptions} of this child alone, {@code mainClass} ({@code -m module/class} on the module
     * path, for a class of a named module) and {@code args}}
     *
     * @param base the command line up to the main class, from {@link #base()}
     * @param jvmOptions JVM options for this child only
     * @param mainClass the child's main class, or {@code module/class}
     * @param args the child's arguments
     * @throws CoordinationException when the child could not find its main class (see the class comment)
     */
    public static List<String> from(List<String> base, List<String> jvmOptions, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>(base);
        cmd.addAll(jvmOptions);
        cmd.addAll(ModulePath.main(base, mainClass));
        cmd.addAll(args);
        return cmd;
    }

    /**
     * {@return the command line of a fresh JVM like this one, up to the main class: the java binary,
     * {@value #NO_PERF_DATA}, this JVM's inherited options ({@link #inheritedJvmOptions}), the shared-memory directory property when set,
     * {@code --enable-native-access=ALL-UNNAMED} and {@code -cp} with this JVM's class path; on the module path also
     * native access for this JVM's modules that have it, {@code --module-path}, the launcher's module options and
     * {@code --add-modules} with the modules this JVM resolved from the path}
     *
     * @throws CoordinationException when the java binary cannot be found
     */
    public static List<String> base() {
        List<String> parentArgs = ownArguments();
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        // No /tmp/hsperfdata_<user>/<pid> file (jps and jstat's), which a child killed by SIGKILL would leave;
        // jcmd reaches the child all the same. Before the inherited options, which may ask for it.
        cmd.add(NO_PERF_DATA);
        cmd.addAll(inheritedJvmOptions(parentArgs));
        if (CoordSettings.SHM_DIR.isSet()
                && cmd.stream().noneMatch(a -> a.startsWith("-D" + CoordSettings.SHM_DIR.name() + "="))) {
            cmd.add("-D" + CoordSettings.SHM_DIR.name() + "=" + CoordSettings.SHM_DIR.text());
        }
        String modulePath = ModulePath.of(parentArgs);
        if (modulePath == null) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        } else {
            cmd.addAll(ModulePath.options(modulePath, parentArgs));
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }

    /**
     * {@return this JVM's arguments, its command line without the binary, whole}: read from
     * {@code /proc/self/cmdline}, as {@link ProcessHandle.Info#arguments()} gives none at all for a command line
     * longer than a page (a long class path), and children would then lose every option they inherit (their
     * temporary folder, their heap). Elsewhere, what {@code ProcessHandle} gives, or nothing. Read once: they do not
     * change, and a parent asks for them more than once on its way to starting its children.
     */
    public static List<String> ownArguments() {
        return OwnArguments.LIST;
    }

    private static final class OwnArguments {
        static final List<String> LIST = read();

        private static List<String> read() {
            try {
                byte[] raw = Files.readAllBytes(Path.of("/proc/self/cmdline"));
                String text = new String(raw, java.nio.charset.Charset.forName(
                        System.getProperty("native.encoding", "UTF-8"), java.nio.charset.StandardCharsets.UTF_8));
                List<String> args = new ArrayList<>(List.of(text.split("\0", -1)));
                if (!args.isEmpty() && args.getLast().isEmpty()) {
                    args.removeLast(); // each argument ends with a NUL
                }
                return args.isEmpty() ? List.of() : List.copyOf(args.subList(1, args.size()));
            } catch (java.io.IOException | RuntimeException e) {
                return ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
            }
        }
    }

    /** Whether {@code option} of the launcher takes the next argument as its value. */
    static boolean takesValue(String option) {
        return OPTIONS_WITH_VALUE.contains(option);
    }

    private static String javaBinary() {
        String command = ProcessHandle.current().info().command().orElse(null);
        if (command != null) {
            String file = Path.of(command).getFileName().toString();
            if (file.equals("java") || file.equals("java.exe")) {
                return command;
            }
        }
        // Started by a custom launcher: use the running JDK's java.
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        if (Files.isExecutable(java)) {
            return java.toString();
        }
        throw new CoordinationException("cannot find the java binary to start children (looked at " + command
                + " and " + java + ")");
    }

    /**
     * {@return the JVM options children inherit from {@code parentArgs} (a JVM's command line without the binary):
     * {@code -D}, {@code -X}, {@code -XX} and assertion switches found before the main class, {@code -jar} or
     * {@code -m}; not debugger agents, archive-writing options, the class or module path, or argument files}
     *
     * @param parentArgs a JVM's arguments, without the binary
     */
    public static List<String> inheritedJvmOptions(List<String> parentArgs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < parentArgs.size(); i++) {
            String a = parentArgs.get(i);
            if (OPTIONS_WITH_VALUE.contains(a)) {
                i++;
                continue;
            }
            if (a.equals("-jar") || a.equals("-m") || a.equals("--module") || a.startsWith("--module=")
                    || !a.startsWith("-")) {
                break;
            }
            if (EXCLUDED_PREFIXES.stream().anyMatch(a::startsWith)) {
                continue;
            }
            if (a.startsWith("-D") || a.startsWith("-X") || a.matches("-(e|d)(s)?a(:.*)?")
                    || a.matches("-(enable|disable)(system)?assertions(:.*)?")) {
                out.add(a);
            }
        }
        return out;
    }
}
