package org.cudaipc4j.examples;

import java.util.List;
import java.util.Objects;

/**
 * One line of the weight-sync conversation ({@code weightsync/2}, docs/interop-format.md): the version word, the
 * message's type, then its fields separated by single spaces; a {@code tensor} line ends with the descriptor's JSON
 * (one line).
 * A torch trainer and a Java server use {@code hello, round, tensor, ok, end, bye, memory}; a Java trainer and a
 * Python server use {@code ready, hello, export, mapped, round, checksum, ok, end, memory, bye}.
 */
sealed interface WeightSyncMessage {
    String VERSION = "weightsync/2";

    /** Trainer: its pid and how many tensors each round shares. */
    record Hello(long pid, int tensors) implements WeightSyncMessage {}

    /** Trainer: round {@code round} follows, {@code tensors} {@link Tensor} lines. */
    record Round(int round, int tensors) implements WeightSyncMessage {}

    /** Torch trainer: one share of the round, the {@link WeightSum} of its bytes and its descriptor's JSON. */
    record Tensor(String name, long wsum64, String descriptorJson) implements WeightSyncMessage {
        public Tensor {
            requireName(name);
            Objects.requireNonNull(descriptorJson);
        }
    }

    /** Python server: CUDA is initialised and warmed up in process {@code pid}; the trainer may measure. */
    record Ready(long pid) implements WeightSyncMessage {}

    /** Java trainer: the next descriptor on the descriptor socket is tensor {@code name}'s. */
    record Export(String name) implements WeightSyncMessage {
        public Export {
            requireName(name);
        }
    }

    /** Python server: all {@code tensors} exports are mapped and their leases held. */
    record Mapped(int tensors) implements WeightSyncMessage {}

    /** Java trainer: the {@link WeightSum} of tensor {@code name}'s bytes this round. */
    record Checksum(String name, long value) implements WeightSyncMessage {
        public Checksum {
            requireName(name);
        }
    }

    /** Server: round {@code round} was checked and every slot of it given back. */
    record Ok(int round) implements WeightSyncMessage {}

    /** Trainer: no more rounds. */
    record End() implements WeightSyncMessage {}

    /** Server: everything of the trainer's is unmapped and the leases are closed. */
    record Bye() implements WeightSyncMessage {}

    /** Trainer: its memory_allocated() at the start and after ipc_collect(), and its /dev/shm entries left. */
    record Memory(long allocatedStart, long allocatedEnd, int shmLeft) implements WeightSyncMessage {}

    /** This message as one line, without its newline. */
    default String format() {
        String body = switch (this) {
            case Hello h -> "hello " + h.pid() + " " + h.tensors();
            case Round r -> "round " + r.round() + " " + r.tensors();
            case Tensor t -> "tensor " + t.name() + " " + WeightSum.format(t.wsum64()) + " " + t.descriptorJson();
            case Ok o -> "ok " + o.round();
            case End e -> "end";
            case Bye b -> "bye";
            case Memory m -> "memory " + m.allocatedStart() + " " + m.allocatedEnd() + " " + m.shmLeft();
            case Ready r -> "ready " + r.pid();
            case Export e -> "export " + e.name();
            case Mapped m -> "mapped " + m.tensors();
            case Checksum c -> "checksum " + c.name() + " " + WeightSum.format(c.value());
        };
        return VERSION + " " + body;
    }

    /**
     * Parses one line (its newline stripped).
     *
     * @throws IllegalArgumentException in one line naming what is wrong, for another version, an unknown type or bad
     *                                  fields
     */
    static WeightSyncMessage parse(String line) {
        if (line == null) {
            throw new IllegalArgumentException("the other side closed the pipe");
        }
        String[] head = line.split(" ", 3);
        if (!head[0].equals(VERSION)) {
            throw new IllegalArgumentException("not a " + VERSION + " message: " + shorten(line));
        }
        if (head.length < 2) {
            throw new IllegalArgumentException("a " + VERSION + " message without a type: " + shorten(line));
        }
        String rest = head.length == 3 ? head[2] : "";
        try {
            return switch (head[1]) {
                case "hello" -> {
                    List<String> f = fields(rest, 2, line);
                    yield new Hello(Long.parseLong(f.get(0)), Integer.parseInt(f.get(1)));
                }
                case "round" -> {
                    List<String> f = fields(rest, 2, line);
                    yield new Round(Integer.parseInt(f.get(0)), Integer.parseInt(f.get(1)));
                }
                case "tensor" -> {
                    String[] f = rest.split(" ", 3);
                    if (f.length != 3 || f[0].isEmpty() || !f[2].startsWith("{")) {
                        throw new IllegalArgumentException("a tensor line has a name, a wsum64 and a descriptor: "
                                + shorten(line));
                    }
                    yield new Tensor(f[0], WeightSum.parse(f[1]), f[2]);
                }
                case "ok" -> new Ok(Integer.parseInt(fields(rest, 1, line).get(0)));
                case "ready" -> new Ready(Long.parseLong(fields(rest, 1, line).get(0)));
                case "export" -> new Export(fields(rest, 1, line).get(0));
                case "mapped" -> new Mapped(Integer.parseInt(fields(rest, 1, line).get(0)));
                case "checksum" -> {
                    List<String> f = fields(rest, 2, line);
                    yield new Checksum(f.get(0), WeightSum.parse(f.get(1)));
                }
                case "end" -> {
                    fields(rest, 0, line);
                    yield new End();
                }
                case "bye" -> {
                    fields(rest, 0, line);
                    yield new Bye();
                }
                case "memory" -> {
                    List<String> f = fields(rest, 3, line);
                    yield new Memory(Long.parseLong(f.get(0)), Long.parseLong(f.get(1)), Integer.parseInt(f.get(2)));
                }
                default -> throw new IllegalArgumentException("an unknown " + VERSION + " message type '" + head[1]
                        + "': " + shorten(line));
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a " + VERSION + " " + head[1] + " message with a bad number ("
                    + e.getMessage() + "): " + shorten(line), e);
        }
    }

    private static void requireName(String name) {
        if (name.isEmpty() || name.chars().anyMatch(c -> c <= ' ')) {
            throw new IllegalArgumentException("a tensor name is not empty and has no spaces: '" + name + "'");
        }
    }

    private static List<String> fields(String rest, int count, String line) {
        List<String> f = rest.isEmpty() ? List.of() : List.of(rest.split(" ", -1));
        if (f.size() != count) {
            throw new IllegalArgumentException("a " + VERSION + " message with " + f.size() + " field(s), "
                    + count + " expected: " + shorten(line));
        }
        return f;
    }

    private static String shorten(String line) {
        return line.length() <= 120 ? line : line.substring(0, 117) + "...";
    }
}
