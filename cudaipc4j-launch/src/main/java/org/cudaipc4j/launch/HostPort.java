package org.cudaipc4j.launch;

import java.util.regex.Pattern;

/**
 * A TCP address as the launchers write it: a host name, an IPv4 address or an IPv6 address, and a port from 1 to
 * 65535. Its text form is {@code host:port}, with an IPv6 address in brackets ({@code [::1]:29501}); the host is kept
 * without brackets. Nothing is resolved here.
 *
 * @param host a host name ({@code [A-Za-z0-9._-]}, not starting with {@code -} or {@code .}), an IPv4 address, or
 *     an IPv6 address (hex digits, {@code :} and {@code .}, an optional {@code %zone}) without brackets
 * @param port 1 to 65535
 */
public record HostPort(String host, int port) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]*");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f.]*(%[A-Za-z0-9._-]+)?");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");
    /** The longest host name DNS allows. */
    private static final int MAX_HOST = 253;

    /**
     * Checks both parts.
     *
     * @throws IllegalArgumentException in one line, when the host or the port is not one described above
     */
    public HostPort {
        String problem = hostProblem(host);
        if (problem != null) {
            throw new IllegalArgumentException("host " + Show.value(host) + ": " + problem);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + ": expected 1 to 65535");
        }
    }

    /**
     * Reads {@code host:port}, {@code [IPv6]:port}.
     *
     * @param text the address
     * @return the address
     * @throws IllegalArgumentException in one line naming the text and what was expected
     */
    public static HostPort parse(String text) {
        String problem = problem(text);
        if (problem != null) {
            throw new IllegalArgumentException(Show.value(text) + ": " + problem);
        }
        int colon = text.lastIndexOf(':');
        String host = text.startsWith("[") ? text.substring(1, text.indexOf(']')) : text.substring(0, colon);
        return new HostPort(host, Integer.parseInt(text.substring(colon + 1)));
    }

    /** What is wrong with {@code text} as an address, or {@code null} when nothing is. */
    static String problem(String text) {
        if (text == null || text.isEmpty()) {
            return "expected host:port, found nothing";
        }
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                return "expected [IPv6]:port, found no ']'";
            }
            if (close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                return "expected ':' and a port after ']'";
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
            if (!host.contains(":")) {
                return "brackets are for IPv6 addresses only; expected host:port";
            }
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0) {
                return "expected host:port, found no ':'";
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
            if (host.contains(":")) {
                return "an IPv6 address goes in brackets, as [::1]:port";
            }
        }
        String hostProblem = hostProblem(host);
        if (hostProblem != null) {
            return "host " + Show.value(host) + ": " + hostProblem;
        }
        return portProblem(port);
    }

    /** What is wrong with {@code port} as a port, or {@code null}. */
    static String portProblem(String port) {
        if (!PORT.matcher(port).matches()) {
            return "port " + Show.value(port) + " is not a number from 1 to 65535";
        }
        int p = Integer.parseInt(port);
        if (p < 1 || p > 65535) {
            return "port " + p + " is out of range: expected 1 to 65535";
        }
        return null;
    }

    /** What is wrong with {@code host} as a host (without brackets), or {@code null}. */
    static String hostProblem(String host) {
        if (host == null || host.isEmpty()) {
            return "empty; expected a host name or address";
        }
        if (host.length() > MAX_HOST) {
            return "longer than " + MAX_HOST + " characters";
        }
        if (NAME.matcher(host).matches() || IPV6.matcher(host).matches()) {
            return null;
        }
        return "expected a host name (letters, digits, '.', '-', '_'), an IPv4 or an IPv6 address";
    }

    /** {@code host:port}, or {@code [host]:port} for an IPv6 address: what {@link #parse} reads. */
    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
