package org.cudaipc4j.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.cudaipc4j.simpleipc.DeviceSelection;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Sync;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.Verify;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.tool.Sizes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The typed values of {@link RootCommand}'s options: one converter per option, used by picocli (through each
 * option's {@code converter}) and by the parse without picocli alike. A refused value is a {@link Refused} whose
 * message is the whole usage error, option name included.
 */
final class OptionTypes {
    private OptionTypes() {}

    /** A value an option does not take; its message is the line the user sees. */
    static final class Refused extends TypeConversionException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** {@code --size}: a byte count of at least 1, with the suffixes {@link Sizes#parseBytes} takes. */
    static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long bytes;
            try {
                bytes = Sizes.parseBytes(value);
            } catch (IllegalArgumentException e) {
                throw new Refused("--size: " + e.getMessage());
            }
            if (bytes < 1) {
                throw new Refused("--size must be at least 1 byte, got '" + value + "'");
            }
            return bytes;
        }
    }

    /**
     * {@code --devices}: device ordinals separated by commas (blanks around each allowed), each once and not
     * negative; one value, not a repeated option.
     */
    static final class Devices implements ITypeConverter<DeviceSelection> {
        @Override
        public DeviceSelection convert(String value) {
            if (value.isBlank()) {
                throw new Refused("--devices: no device given (leave the option out to consider all)");
            }
            List<Integer> ordinals = new ArrayList<>();
            for (String d : value.split(",", -1)) {
                int ordinal;
                try {
                    ordinal = Integer.parseInt(d.trim());
                } catch (NumberFormatException e) {
                    throw new Refused("--devices takes device ordinals like 0,1; '" + d + "' is not one");
                }
                if (ordinal < 0) {
                    throw new Refused("--devices: ordinal " + ordinal + " is negative");
                }
                if (ordinals.contains(ordinal)) {
                    throw new Refused("--devices: device " + ordinal + " is listed twice");
                }
                ordinals.add(ordinal);
            }
            return new DeviceSelection(ordinals);
        }
    }

    /** {@code --timeout}: a positive duration, as {@link Sizes#parseDuration} reads it. */
    static final class Timeout implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration limit;
            try {
                limit = Sizes.parseDuration(value);
            } catch (IllegalArgumentException e) {
                throw new Refused("--timeout: " + e.getMessage());
            }
            if (limit.isZero()) {
                throw new Refused("--timeout must be positive, got '" + value + "'");
            }
            return limit;
        }
    }

    /** {@code --backend}: cuda, host or auto, in any case. */
    static final class Backend implements ITypeConverter<BackendKind> {
        @Override
        public BackendKind convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "cuda" -> BackendKind.CUDA;
                case "host" -> BackendKind.HOST;
                case "auto" -> BackendKind.AUTO;
                default -> throw new Refused("--backend must be cuda, host or auto, got '" + value + "'");
            };
        }
    }

    /** {@code --kernel}: vec16 or simple, in any case. */
    static final class Kernel implements ITypeConverter<BuiltinKernels.Fill> {
        @Override
        public BuiltinKernels.Fill convert(String value) {
            try {
                return BuiltinKernels.Fill.parse(value);
            } catch (IllegalArgumentException e) {
                throw new Refused("--kernel " + e.getMessage());
            }
        }
    }

    /** {@code --verify}: device or host, in any case. */
    static final class VerifyWhere implements ITypeConverter<Verify> {
        @Override
        public Verify convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "device" -> Verify.DEVICE;
                case "host" -> Verify.HOST;
                default -> throw new Refused("--verify must be host or device, got '" + value + "'");
            };
        }
    }

    /** {@code --ipc}: legacy, vmm or pool, in any case. */
    static final class Ipc implements ITypeConverter<IpcMode> {
        @Override
        public IpcMode convert(String value) {
            try {
                return IpcMode.parse(value);
            } catch (IllegalArgumentException e) {
                throw new Refused("--ipc: " + e.getMessage());
            }
        }
    }

    /** {@code --sync}: counters or events, in any case. */
    static final class SyncMode implements ITypeConverter<Sync> {
        @Override
        public Sync convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "counters" -> Sync.COUNTERS;
                case "events" -> Sync.EVENTS;
                default -> throw new Refused("--sync must be counters or events, got '" + value + "'");
            };
        }
    }

    /** {@code --transport}: ipc or nccl, in any case. */
    static final class TransportKind implements ITypeConverter<RootCommand.Transport> {
        @Override
        public RootCommand.Transport convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "ipc" -> RootCommand.Transport.IPC;
                case "nccl" -> RootCommand.Transport.NCCL;
                default -> throw new Refused("--transport must be ipc or nccl, got '" + value + "'");
            };
        }
    }
}
