package org.cudaipc4j.coord.fd;

import java.util.List;

/**
 * A message received over an {@link FdChannel}: its bytes and the descriptors that came with it, now owned by the
 * receiver. {@link #close()} closes every descriptor not {@linkplain OwnedFd#release() handed on}.
 *
 * @param payload the message's bytes
 * @param fds the descriptors that came with it
 */
public record FdMessage(byte[] payload, List<OwnedFd> fds) implements AutoCloseable {
    /** Copies the payload and the list. */
    public FdMessage {
        payload = payload.clone();
        fds = List.copyOf(fds);
    }

    /** {@return a copy of the message's bytes} */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** Closes the descriptors still owned. */
    @Override
    public void close() {
        fds.forEach(OwnedFd::close);
    }
}
