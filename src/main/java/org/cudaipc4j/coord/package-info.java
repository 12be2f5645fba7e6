/**
 * Multi-process coordination for a group of JVMs that share GPU memory: no GPU needed here.
 *
 * <ul>
 *   <li>{@link org.cudaipc4j.coord.SharedSegment}: a private (0600) file under {@code /dev/shm}, reserved up front,
 *       mapped as a {@link java.lang.foreign.MemorySegment}, unlinked by its creator (also on SIGINT/SIGTERM) and
 *       reaped by the next parent when its creator was killed.</li>
 *   <li>{@link org.cudaipc4j.coord.ControlBlock}: the group's shared layout (header, barrier, assignment, ready and abort words,
 *       per-process slots with IPC handles, status and heartbeat), validated on open.</li>
 *   <li>{@link org.cudaipc4j.coord.Barrier}: the simpleIPC sense-reversing barrier with an idle strategy, a timeout,
 *       abort and dead-peer detection.</li>
 *   <li>{@link org.cudaipc4j.coord.Supervisor} (parent) and {@link org.cudaipc4j.coord.ChildRuntime} (child): start
 *       the children, watch exits and heartbeats, end the group on the first failure; children leave when their
 *       parent dies.</li>
 *   <li>{@link org.cudaipc4j.coord.BarrierLatency}: the barrier's round-trip benchmark.</li>
 * </ul>
 *
 * <p>Parent:
 * <pre>{@code
 * SharedSegment.reapStale();
 * try (ControlBlock block = ControlBlock.create(n);
 *      Supervisor supervisor = new Supervisor(block, Supervisor.Options.defaults())) {
 *     supervisor.start("com.example.Child", argsPerChild);   // each child gets block.name() and its index
 *     ... block.setDeviceOrdinal(i, d); block.publishAssignment();   // or block.dismiss()
 *     ... block.setMemoryHandle(i, ...); block.publishReady();
 *     if (supervisor.awaitReleased(timeout)) { ... free what was exported ... }
 *     Supervisor.Outcome outcome = supervisor.awaitAll(Duration.ofMinutes(5));
 *     outcome.failures().forEach(f -> System.out.printf("Process %d failed (%s)%n", f.index(), f.reason()));
 * }
 * }</pre>
 * To overlap the children's JVM start with the block's creation, start them first with a name from
 * {@code ControlBlock.newName()}, then {@code ControlBlock.create(name, n)} and {@code supervisor.watch(block)} (a
 * {@code new Supervisor(n, options)}); the children join with {@code ChildRuntime.join(name, index, timeout)},
 * which waits for the block.
 * Child:
 * <pre>{@code
 * try (ChildRuntime rt = ChildRuntime.join(segmentName, index)) {
 *     if (!rt.block().awaitAssignment(timeout)) { return; }   // dismissed: leave quietly
 *     rt.block().awaitReady(timeout);
 *     Barrier barrier = rt.block().barrier(index, timeout);
 *     for (...) { work(); barrier.await(); }
 *     ... close what was opened ...; rt.setStatus(ProcessStatus.RELEASED);
 * } catch (CoordinationException e) { ... exit non-zero ... }
 * }</pre>
 */
package org.cudaipc4j.coord;
