/**
 * Opening what another process shared, whatever the descriptor's kind, with one call: {@link
 * org.cudaipc4j.interop.opening.Descriptors#open Descriptors.open} (Python's {@code cudaipc4j.open}). It maps a
 * {@code legacy}, {@code vmm} or {@code pool} export through the library's importer, signed into the exporter's holder
 * table while mapped, and a {@code torch} share through torch's reader with its lease; it makes the reader's stream
 * wait on the producer's event, and the {@link org.cudaipc4j.interop.opening.OpenedTensor} it returns gives all of
 * that back at its close. A descriptor that cannot be opened as given is refused before the driver is touched
 * ({@link org.cudaipc4j.interop.opening.OpenRefusedException}, one line that says why).
 *
 * <p>A reader of descriptors that arrive with their file descriptors over the exporter's socket:
 * <pre>{@code
 * try (Context context = Context.retainPrimary(Device.byUuid(d.deviceUuid()))) {
 *     Stream stream = Stream.create(context, true);
 *     OpenOptions options = OpenOptions.defaults().withFds(fds); // received with d; closed by the caller
 *     try (OpenedTensor t = Descriptors.open(d, context, stream, options)) {
 *         // t.layout(): dtype, shape, strides; t.copyToAsync(0, hostSegment, stream) reads after the event
 *     }
 * }
 * }</pre>
 * Without {@code withFds}, a {@code posix_fd} export's descriptors are taken from the exporter by its
 * {@code fd_numbers} ({@code pidfd_getfd}: same user, ptrace rights, one PID namespace). Torch shares open through a
 * reader of the open's own unless {@link org.cudaipc4j.interop.opening.OpenOptions#withTorchReader} gives one started
 * early, as a server that opens many shares does. {@link org.cudaipc4j.interop.opening.OpenOptions#withPhases} times
 * the open's phases.
 *
 * <p>Uses {@code org.cudaipc4j.interop} (the descriptor), {@code org.cudaipc4j.interop.torch} (torch's reader),
 * {@code org.cudaipc4j.cuda} with its {@code ipc} package (the importer), {@code org.cudaipc4j.coord} (the holder
 * table) and its {@code fd} package (pidfd).
 */
package org.cudaipc4j.interop.opening;
