package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Sync;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Verify;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill;
import org.cudaipc4j.tool.ProcessExit;

/**
 * What a simpleIPC child is told: the run's options as the parent parsed them, and its own place in the group. It
 * travels as the child's third argument, written by {@link #encode()} and read by {@link #decode}, so the child
 * never parses an option string or reads a system property for them. The first two arguments are the child's index
 * in plain digits and the control block's name, for process lists (scripts find a run's children by them), and must
 * agree with the settings.
 *
 * <p>The encoding (URL-safe Base64 without padding, of): the magic {@code "CS"}, the version byte {@value #VERSION},
 * then fields, each a code byte and its value (big-endian): an int is 4 bytes, a long 8, a flag or an enum 1 (the
 * enum's code below, never its ordinal), a duration its seconds (8) and nanoseconds (4), a text its UTF-8 length (4)
 * and bytes, a device list its count (4) and ordinals (4 each). Every field is required except the socket, the
 * phase log and the quiet exit (written only when set); an unknown code is refused, as parent and child always come
 * from the same build. Version 2 added the quiet exit.
 *
 * @param id the child's process index in the group
 * @param segment the control block's name
 * @param backend where the group runs: {@code CUDA} or {@code HOST} (never {@code AUTO}: the parent decided)
 * @param socket the socket the memory's file descriptors travel over, or null ({@code --ipc legacy})
 * @param phaseFile where the child writes its phase marks, or null
 * @param run the run's options
 * @param quietExit whether the child's JVM writes an AOT cache at exit ({@code -XX:AOTCacheOutput}), whose lines
 *                  about it are not the tool's: the child then points its standard output and error at
 *                  {@code /dev/null} just before it exits (see {@link ProcessExit#exit(int, boolean)})
 */
record ChildSettings(int id, String segment, BackendKind backend, Path socket, Path phaseFile, SimpleIpcOptions run,
        boolean quietExit) {
    static final String USAGE = "usage: SimpleIpcChild ID SEGMENT SETTINGS (written by the simpleIPC parent)";
    /** The encoding's version; a child refuses any other. */
    static final int VERSION = 2;

    // Field codes: stable, one per field; a new field takes a new code.
    static final int ID = 1;
    static final int SEGMENT = 2;
    static final int BACKEND = 3;
    static final int SOCKET = 4;
    static final int PHASE_FILE = 5;
    static final int QUIET_EXIT = 6;
    static final int BYTES = 10;
    static final int PROCS_PER_DEVICE = 11;
    static final int DEVICES = 12;
    static final int ROUNDS = 13;
    static final int RUN_BACKEND = 14;
    static final int SIMULATED_DEVICES = 15;
    static final int TIMEOUT = 16;
    static final int JSON = 17;
    static final int CORRUPT = 18;
    static final int KERNEL = 19;
    static final int VERIFY = 20;
    static final int IPC = 21;
    static final int SYNC = 22;
    static final int HOST_WAIT_TIMEOUT = 23;
    private static final int LAST_CODE = HOST_WAIT_TIMEOUT;

    ChildSettings {
        if (backend == BackendKind.AUTO) {
            throw new IllegalArgumentException("a child runs on cuda or host, not auto");
        }
    }

    /** Settings of a child whose exit is not silenced (every child but the one recording the start-up cache). */
    ChildSettings(int id, String segment, BackendKind backend, Path socket, Path phaseFile, SimpleIpcOptions run) {
        this(id, segment, backend, socket, phaseFile, run, false);
    }

    /** The child's command-line arguments: its index, the control block's name and the settings. */
    java.util.List<String> arguments() {
        return List.of(Integer.toString(id), segment, encode());
    }

    /** The settings {@link #arguments()} wrote. @throws IllegalArgumentException for anything else */
    static ChildSettings fromArguments(String[] args) {
        if (args.length != 3) {
            throw new IllegalArgumentException(USAGE);
        }
        ChildSettings settings = decode(args[2]);
        if (!args[0].equals(Integer.toString(settings.id()))) {
            throw new IllegalArgumentException("child settings: index " + args[0] + " but settings of "
                    + settings.id());
        }
        if (!args[1].equals(settings.segment())) {
            throw new IllegalArgumentException("child settings: control block " + args[1] + " but settings of "
                    + settings.segment());
        }
        return settings;
    }

    /** The settings as text (see the class description). */
    String encode() {
        // A ByteBuffer, big-endian as a DataOutputStream writes: that one's byte-array views spin method handles
        // in the parent of every run.
        byte[] segmentText = segment.getBytes(StandardCharsets.UTF_8);
        byte[] socketText = socket == null ? null : socket.toString().getBytes(StandardCharsets.UTF_8);
        byte[] phaseText = phaseFile == null ? null : phaseFile.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(FIXED_BYTES + 4 * run.devices().size() + textBytes(segmentText)
                + textBytes(socketText) + textBytes(phaseText));
        out.put((byte) 'C');
        out.put((byte) 'S');
        out.put((byte) VERSION);
        out.put((byte) ID);
        out.putInt(id);
        out.put((byte) SEGMENT);
        text(out, segmentText);
        out.put((byte) BACKEND);
        out.put((byte) backendCode(backend));
        if (socket != null) {
            out.put((byte) SOCKET);
            text(out, socketText);
        }
        if (phaseFile != null) {
            out.put((byte) PHASE_FILE);
            text(out, phaseText);
        }
        if (quietExit) {
            out.put((byte) QUIET_EXIT);
            out.put((byte) 1);
        }
        out.put((byte) BYTES);
        out.putLong(run.bytes());
        out.put((byte) PROCS_PER_DEVICE);
        out.putInt(run.procsPerDevice());
        out.put((byte) DEVICES);
        out.putInt(run.devices().size());
        for (int d : run.devices()) {
            out.putInt(d);
        }
        out.put((byte) ROUNDS);
        out.putInt(run.rounds());
        out.put((byte) RUN_BACKEND);
        out.put((byte) backendCode(run.backend()));
        out.put((byte) SIMULATED_DEVICES);
        out.putInt(run.simulatedDevices());
        out.put((byte) TIMEOUT);
        duration(out, run.timeout());
        out.put((byte) JSON);
        out.put((byte) (run.json() ? 1 : 0));
        out.put((byte) CORRUPT);
        out.putInt(run.corruptProcess());
        out.put((byte) KERNEL);
        out.put((byte) switch (run.kernel()) {
            case SIMPLE -> 1;
            case VEC16 -> 2;
        });
        out.put((byte) VERIFY);
        out.put((byte) switch (run.verify()) {
            case DEVICE -> 1;
            case HOST -> 2;
        });
        out.put((byte) IPC);
        out.put((byte) switch (run.ipc()) {
            case LEGACY -> 1;
            case VMM -> 2;
            case POOL -> 3;
        });
        out.put((byte) SYNC);
        out.put((byte) switch (run.sync()) {
            case COUNTERS -> 1;
            case EVENTS -> 2;
        });
        out.put((byte) HOST_WAIT_TIMEOUT);
        duration(out, run.hostWaitTimeout());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(out.array(), out.position()));
    }

    /** The settings {@link #encode()} wrote. @throws IllegalArgumentException for anything else */
    static ChildSettings decode(String encoded) {
        ByteBuffer in;
        try {
            in = ByteBuffer.wrap(Base64.getUrlDecoder().decode(encoded));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("child settings: not the parent's encoding (" + e.getMessage() + ")");
        }
        try {
            if (in.get() != 'C' || in.get() != 'S') {
                throw new IllegalArgumentException("child settings: not the parent's encoding");
            }
            int version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("child settings: version " + version + ", expected " + VERSION);
            }
            Object[] values = new Object[LAST_CODE + 1];
            while (in.hasRemaining()) {
                int code = in.get();
                if (code < 1 || code > LAST_CODE || code > QUIET_EXIT && code < BYTES) {
                    throw new IllegalArgumentException("child settings: unknown field " + code);
                }
                if (values[code] != null) {
                    throw new IllegalArgumentException("child settings: field " + code + " given twice");
                }
                values[code] = switch (code) {
                    case ID, PROCS_PER_DEVICE, ROUNDS, SIMULATED_DEVICES, CORRUPT -> in.getInt();
                    case BYTES -> in.getLong();
                    case SEGMENT, SOCKET, PHASE_FILE -> text(in);
                    case BACKEND, RUN_BACKEND -> backend(in.get());
                    case TIMEOUT, HOST_WAIT_TIMEOUT -> Duration.ofSeconds(in.getLong(), in.getInt());
                    case JSON, QUIET_EXIT -> flag(in.get(), code);
                    case DEVICES -> devices(in);
                    case KERNEL -> switch (in.get()) {
                        case 1 -> Fill.SIMPLE;
                        case 2 -> Fill.VEC16;
                        default -> throw badCode(code);
                    };
                    case VERIFY -> switch (in.get()) {
                        case 1 -> Verify.DEVICE;
                        case 2 -> Verify.HOST;
                        default -> throw badCode(code);
                    };
                    case IPC -> switch (in.get()) {
                        case 1 -> IpcMode.LEGACY;
                        case 2 -> IpcMode.VMM;
                        case 3 -> IpcMode.POOL;
                        default -> throw badCode(code);
                    };
                    case SYNC -> switch (in.get()) {
                        case 1 -> Sync.COUNTERS;
                        case 2 -> Sync.EVENTS;
                        default -> throw badCode(code);
                    };
                    default -> throw new IllegalArgumentException("child settings: unknown field " + code);
                };
            }
            for (int code = 1; code <= LAST_CODE; code++) {
                boolean optional = code == SOCKET || code == PHASE_FILE || code >= QUIET_EXIT && code < BYTES;
                if (values[code] == null && !optional) {
                    throw new IllegalArgumentException("child settings: field " + code + " missing");
                }
            }
            @SuppressWarnings("unchecked")
            List<Integer> devices = (List<Integer>) values[DEVICES];
            SimpleIpcOptions run = new SimpleIpcOptions((Long) values[BYTES], (Integer) values[PROCS_PER_DEVICE],
                    devices, (Integer) values[ROUNDS], (BackendKind) values[RUN_BACKEND],
                    (Integer) values[SIMULATED_DEVICES], (Duration) values[TIMEOUT], (Boolean) values[JSON],
                    (Integer) values[CORRUPT], (Fill) values[KERNEL], (Verify) values[VERIFY], (IpcMode) values[IPC],
                    (Sync) values[SYNC], (Duration) values[HOST_WAIT_TIMEOUT]);
            return new ChildSettings((Integer) values[ID], (String) values[SEGMENT], (BackendKind) values[BACKEND],
                    values[SOCKET] == null ? null : Path.of((String) values[SOCKET]),
                    values[PHASE_FILE] == null ? null : Path.of((String) values[PHASE_FILE]), run,
                    values[QUIET_EXIT] != null && (Boolean) values[QUIET_EXIT]);
        } catch (BufferUnderflowException | java.time.DateTimeException | ArithmeticException e) {
            throw new IllegalArgumentException("child settings: truncated or malformed");
        }
    }

    private static int backendCode(BackendKind kind) {
        return switch (kind) {
            case CUDA -> 1;
            case HOST -> 2;
            case AUTO -> 3;
        };
    }

    private static BackendKind backend(byte code) {
        return switch (code) {
            case 1 -> BackendKind.CUDA;
            case 2 -> BackendKind.HOST;
            case 3 -> BackendKind.AUTO;
            default -> throw badCode(BACKEND);
        };
    }

    private static boolean flag(byte value, int field) {
        return switch (value) {
            case 0 -> false;
            case 1 -> true;
            default -> throw badCode(field);
        };
    }

    private static List<Integer> devices(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || count > in.remaining() / Integer.BYTES) {
            throw new IllegalArgumentException("child settings: device count " + count);
        }
        List<Integer> devices = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            devices.add(in.getInt());
        }
        return devices;
    }

    private static String text(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("child settings: text length " + length);
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The encoding's bytes but for its devices and texts: 22 fields of at most 13 bytes each, with room to spare. */
    private static final int FIXED_BYTES = 320;

    private static int textBytes(byte[] text) {
        return text == null ? 0 : 4 + text.length;
    }

    private static void text(ByteBuffer out, byte[] bytes) {
        out.putInt(bytes.length);
        out.put(bytes);
    }

    private static void duration(ByteBuffer out, Duration value) {
        out.putLong(value.getSeconds());
        out.putInt(value.getNano());
    }

    private static IllegalArgumentException badCode(int field) {
        return new IllegalArgumentException("child settings: unknown value of field " + field);
    }
}
