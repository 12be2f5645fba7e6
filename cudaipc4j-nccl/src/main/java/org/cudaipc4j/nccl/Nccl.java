package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.cudaipc4j.nccl.binding.NcclCalls;
import org.cudaipc4j.nccl.binding.NcclFunction;
import org.cudaipc4j.nccl.binding.NcclLayouts;
import org.cudaipc4j.nccl.binding.NcclLibrary;

/**
 * A loaded NCCL library of a known, supported version, and the checked layer over its calls: a result that is not
 * {@code ncclSuccess} becomes an {@link NcclCallException} naming the {@link NcclFunction} that returned it, with
 * NCCL's description and, for a communicator, its last error.
 *
 * <p>Which file: {@link #load(String)} names it; {@link #load()} takes {@code CUDAIPC4J_NCCL_LIBRARY} when set, else
 * {@code libnccl.so.2}. A process calls one NCCL library: the first one accepted; another file is refused
 * (the same file under another name is accepted). All ranks of a communicator must load the same NCCL release
 * (NCCL refuses ranks of different versions); where torch brings its own NCCL, Java ranks that join torch ranks
 * load torch's file.
 */
public final class Nccl {
    private static final Map<String, Nccl> LOADED = new ConcurrentHashMap<>();

    private final NcclLibrary library;
    private final NcclVersion version;

    private Nccl(NcclLibrary library, NcclVersion version) {
        this.library = library;
        this.version = version;
    }

    /**
     * {@return the library {@code CUDAIPC4J_NCCL_LIBRARY} names, else {@code libnccl.so.2}}
     *
     * @see #load(String)
     */
    public static Nccl load() {
        return load(NcclSettings.LIBRARY.get());
    }

    /**
     * Loads {@code nameOrPath} (a path when it contains a {@code /}) once per process and checks its version.
     *
     * @param nameOrPath the library's name or path
     * @return the loaded NCCL
     * @throws NcclUnavailableException when it does not load, has no {@code ncclGetVersion}, is older than
     *     {@link NcclVersion#MINIMUM}, or is another file than the NCCL this process already calls
     */
    public static Nccl load(String nameOrPath) {
        Objects.requireNonNull(nameOrPath, "nameOrPath");
        return LOADED.computeIfAbsent(nameOrPath, Nccl::open);
    }

    private static Nccl open(String nameOrPath) {
        NcclLibrary library;
        try {
            library = NcclLibrary.load(nameOrPath);
        } catch (IllegalArgumentException e) {
            throw new NcclUnavailableException("cannot load NCCL from " + nameOrPath + " (" + e.getMessage()
                    + "); install NCCL 2 or name its libnccl.so.2 in " + NcclSettings.LIBRARY);
        }
        if (!library.has(NcclFunction.ncclGetVersion)) {
            throw new NcclUnavailableException(nameOrPath + " has no ncclGetVersion: not an NCCL library");
        }
        int code;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int r = library.ncclGetVersion(out);
            if (r != NcclResult.SUCCESS.code()) {
                throw new NcclUnavailableException(nameOrPath + ": ncclGetVersion failed: " + NcclResult.nameOf(r));
            }
            code = out.get(JAVA_INT, 0);
        }
        if (code < 20900) {
            throw new NcclUnavailableException(nameOrPath + " is NCCL version code " + code + "; cudaipc4j needs NCCL "
                    + NcclVersion.MINIMUM + " or later");
        }
        NcclVersion version = new NcclVersion(code);
        if (version.compareTo(NcclVersion.MINIMUM) < 0) {
            throw new NcclUnavailableException(nameOrPath + " is NCCL " + version + "; cudaipc4j needs NCCL "
                    + NcclVersion.MINIMUM + " or later");
        }
        NcclLibrary bound = library.bind(function -> new NcclMissingFunctionException(function, nameOrPath, version));
        if (!bound.isSameFile(library)) {
            throw new NcclUnavailableException("cannot load NCCL from " + nameOrPath + ": this process already calls"
                    + " NCCL from " + bound.name() + " (one NCCL library per process)");
        }
        return new Nccl(library, version);
    }

    /** {@return the release loaded} */
    public NcclVersion version() {
        return version;
    }

    /** {@return the name or path it was loaded by} */
    public String library() {
        return library.name();
    }

    /**
     * {@return a new unique id ({@code ncclGetUniqueId})} This process then hosts NCCL's bootstrap for the
     * communicator made from it and must stay alive until every rank has joined.
     */
    public UniqueId newUniqueId() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment id = arena.allocate(NcclLayouts.UNIQUE_ID);
            check(NcclFunction.ncclGetUniqueId, NcclCalls.ncclGetUniqueId(id));
            return UniqueId.of(id.toArray(JAVA_BYTE));
        }
    }

    /**
     * {@return NCCL's description of {@code result} ({@code ncclGetErrorString}); empty when it has none}
     *
     * @param result an {@code ncclResult_t}
     */
    public String errorString(int result) {
        return string(NcclCalls.ncclGetErrorString(result));
    }

    /** NCCL's last error message for {@code comm} ({@code ncclGetLastError}); empty when none. */
    String lastError(MemorySegment comm) {
        return string(NcclCalls.ncclGetLastError(comm));
    }

    /** Throws the {@linkplain #failure failure} of {@code function} unless {@code result} is {@code ncclSuccess}. */
    void check(NcclFunction function, int result) {
        if (result != NcclResult.SUCCESS.code()) {
            throw failure(function, result, null);
        }
    }

    /** The exception for {@code function} returning {@code result}, with the communicator's last error if any. */
    NcclCallException failure(NcclFunction function, int result, MemorySegment comm) {
        String description = errorString(result);
        if (comm != null && !comm.equals(MemorySegment.NULL)) {
            String last = lastError(comm);
            if (!last.isEmpty()) {
                description = description.isEmpty() ? last : description + " (" + last + ")";
            }
        }
        return new NcclCallException(function.name(), result, description);
    }

    private static String string(MemorySegment p) {
        if (p.equals(MemorySegment.NULL)) {
            return "";
        }
        return p.reinterpret(4096).getString(0).strip();
    }

    @Override
    public String toString() {
        return "NCCL " + version + " (" + library.name() + ")";
    }
}
