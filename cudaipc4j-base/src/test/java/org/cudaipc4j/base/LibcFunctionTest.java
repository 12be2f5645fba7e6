package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Each libc declaration against its prototype, as the Linux man pages give it, written out independently. */
class LibcFunctionTest {
    /** Name to header and prototype; {@code ...} marks where the variadic arguments begin. */
    private static final Map<String, String[]> PROTOTYPES = new TreeMap<>(Map.ofEntries(
            Map.entry("open", new String[] {"fcntl.h", "int (const char *, int, ... mode_t)"}),
            Map.entry("fcntl", new String[] {"fcntl.h", "int (int, int, ...)"}),
            Map.entry("posix_fallocate", new String[] {"fcntl.h", "int (int, off_t, off_t)"}),
            Map.entry("fchmod", new String[] {"sys/stat.h", "int (int, mode_t)"}),
            Map.entry("memfd_create", new String[] {"sys/mman.h", "int (const char *, unsigned int)"}),
            Map.entry("close", new String[] {"unistd.h", "int (int)"}),
            Map.entry("dup2", new String[] {"unistd.h", "int (int, int)"}),
            Map.entry("getuid", new String[] {"unistd.h", "uid_t ()"}),
            Map.entry("syscall", new String[] {"unistd.h", "long (long, ... long, long, long, long, long, long)"}),
            Map.entry("_exit", new String[] {"unistd.h", "void (int)"}),
            Map.entry("strerror", new String[] {"string.h", "char * (int)"}),
            Map.entry("setenv", new String[] {"stdlib.h", "int (const char *, const char *, int)"}),
            Map.entry("getenv", new String[] {"stdlib.h", "char * (const char *)"}),
            Map.entry("socket", new String[] {"sys/socket.h", "int (int, int, int)"}),
            Map.entry("socketpair", new String[] {"sys/socket.h", "int (int, int, int, int *)"}),
            Map.entry("bind", new String[] {"sys/socket.h", "int (int, const struct sockaddr *, socklen_t)"}),
            Map.entry("listen", new String[] {"sys/socket.h", "int (int, int)"}),
            Map.entry("accept4", new String[] {"sys/socket.h", "int (int, struct sockaddr *, socklen_t *, int)"}),
            Map.entry("connect", new String[] {"sys/socket.h", "int (int, const struct sockaddr *, socklen_t)"}),
            Map.entry("sendmsg", new String[] {"sys/socket.h", "ssize_t (int, const struct msghdr *, int)"}),
            Map.entry("recvmsg", new String[] {"sys/socket.h", "ssize_t (int, struct msghdr *, int)"}),
            Map.entry("getsockopt", new String[] {"sys/socket.h", "int (int, int, int, void *, socklen_t *)"}),
            Map.entry("shutdown", new String[] {"sys/socket.h", "int (int, int)"}),
            Map.entry("poll", new String[] {"poll.h", "int (struct pollfd *, nfds_t, int)"}),
            Map.entry("epoll_create1", new String[] {"sys/epoll.h", "int (int)"}),
            Map.entry("epoll_ctl", new String[] {"sys/epoll.h", "int (int, int, int, struct epoll_event *)"}),
            Map.entry("epoll_wait", new String[] {"sys/epoll.h", "int (int, struct epoll_event *, int, int)"}),
            Map.entry("prctl", new String[] {"sys/prctl.h",
                "int (int, ... unsigned long, unsigned long, unsigned long, unsigned long)"})));

    /** The LP64 ABI of Linux on x86-64 and AArch64: int and its aliases are 32 bits, long and pointers 64. */
    private static MemoryLayout lp64(String cType) {
        String type = cType.replace("...", "").strip();
        if (type.endsWith("*")) {
            return ADDRESS;
        }
        return switch (type) {
            case "int", "unsigned int", "mode_t", "uid_t", "socklen_t" -> JAVA_INT;
            case "long", "unsigned long", "size_t", "ssize_t", "off_t", "nfds_t" -> JAVA_LONG;
            case "void" -> null;
            default -> throw new AssertionError("no LP64 size for " + cType);
        };
    }

    @Test
    void everyDeclarationIsItsPrototypeOnLp64() {
        Map<String, String> declared = new TreeMap<>();
        Map<String, String> expected = new TreeMap<>();
        for (LibcFunction f : LibcFunction.values()) {
            declared.put(f.name(), f.header() + " " + f.descriptor() + " variadic from " + f.firstVariadic());
        }
        PROTOTYPES.forEach((name, prototype) -> {
            String text = prototype[1];
            MemoryLayout returns = lp64(text.substring(0, text.indexOf('(')));
            String inside = text.substring(text.indexOf('(') + 1, text.indexOf(')')).strip();
            List<MemoryLayout> parameters = new ArrayList<>();
            int firstVariadic = -1;
            for (String parameter : inside.isEmpty() ? new String[0] : inside.split(",")) {
                if (parameter.strip().startsWith("...")) {
                    firstVariadic = parameters.size();
                }
                if (!parameter.strip().equals("...")) {
                    parameters.add(lp64(parameter));
                }
            }
            FunctionDescriptor d = returns == null ? FunctionDescriptor.ofVoid(parameters.toArray(MemoryLayout[]::new))
                    : FunctionDescriptor.of(returns, parameters.toArray(MemoryLayout[]::new));
            expected.put(name, prototype[0] + " " + d + " variadic from " + firstVariadic);
        });
        assertEquals(expected, declared);
    }

    @Test
    void everyFunctionIsInThisProcesssLibc() {
        for (LibcFunction f : LibcFunction.values()) {
            assertTrue(Linker.nativeLinker().defaultLookup().find(f.name()).isPresent(), f.name());
        }
    }

    @Test
    void everyDeclarationHasOneCallOfItsExactType() {
        // invokeExact needs the call's Java type to be the linked handle's: errno's capture segment comes first
        Map<String, MethodType> calls = new TreeMap<>();
        for (Method m : LibcCalls.class.getDeclaredMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && !Modifier.isPrivate(m.getModifiers())) {
                assertNull(calls.put(m.getName(), MethodType.methodType(m.getReturnType(), m.getParameterTypes())),
                        "one call per function: " + m.getName());
            }
        }
        Map<String, MethodType> declared = new TreeMap<>();
        for (LibcFunction f : LibcFunction.values()) {
            MethodType type = f.descriptor().toMethodType();
            declared.put(f.name(), f.capturesErrno() ? type.insertParameterTypes(0, MemorySegment.class) : type);
        }
        assertEquals(declared, calls);
    }

    @Test
    void everyHolderLinksItsFunctionToTheTypeOfItsCall() throws ReflectiveOperationException {
        Map<String, MethodType> calls = new TreeMap<>();
        for (Method m : LibcCalls.class.getDeclaredMethods()) {
            calls.put(m.getName(), MethodType.methodType(m.getReturnType(), m.getParameterTypes()));
        }
        int holders = 0;
        for (Class<?> holder : LibcCalls.class.getDeclaredClasses()) {
            Field h = holder.getDeclaredField("H");
            h.setAccessible(true);
            MethodHandle linked = (MethodHandle) h.get(null); // initialises the holder: links its function
            assertTrue(calls.containsValue(linked.type()), holder.getSimpleName() + " " + linked.type());
            holders++;
        }
        assertEquals(LibcFunction.values().length, holders, "one holder per function");
    }
}
