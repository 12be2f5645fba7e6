/**
 * Multi-process coordination for a group of processes that share memory: no GPU needed here.
 * Uses only {@code java.base}, the libraries' shared base ({@code org.cudaipc4j.base}: libc, closing) and this
 * module's {@code internal} package (removals at shutdown).
 *
 * <ul>
 *   <li>{@link org.cudaipc4j.coord.SharedSegment}: a private (0600) file under {@code /dev/shm}, reserved up front,
 *       mapped as a {@link java.lang.foreign.MemorySegment}, unlinked by its creator (also on SIGINT/SIGTERM) and
 *       reaped by the next parent when its creator was killed.</li>
 *   <li>{@link org.cudaipc4j.coord.ControlBlock}: the group's shared layout (header, barrier, assignment, ready and
 *       abort words, a slot per process with its status, heartbeat and the application's data in a format the
 *       application gives as a {@link java.lang.foreign.MemoryLayout}), validated on open.</li>
 *   <li>{@link org.cudaipc4j.coord.Barrier}: a sense-reversing barrier with an idle strategy, a timeout, abort and
 *       dead-peer detection.</li>
 *   <li>{@link org.cudaipc4j.coord.Supervisor} (parent) and {@link org.cudaipc4j.coord.ChildRuntime} (child): watch
 *       the members' exits and heartbeats, end the group on the first failure; children leave when their parent
 *       dies, and end the group when it stops responding ({@link org.cudaipc4j.coord.Liveness}: one silence limit
 *       for every group). {@link org.cudaipc4j.coord.JvmCommand} builds the command line of a child JVM and
 *       {@link org.cudaipc4j.coord.OutputPump} copies a child's output; a member may be any program, or a process
 *       started elsewhere ({@link org.cudaipc4j.coord.Supervisor#adopt}), each with its own environment and output
 *       ({@link org.cudaipc4j.coord.MemberCommand}); a group that shares no control block (NCCL ranks) is judged by
 *       its exits alone ({@link org.cudaipc4j.coord.Supervisor#withoutBlock}). {@link org.cudaipc4j.coord.ProcessEnd}
 *       ends a member at once, as a killed one ends; {@link org.cudaipc4j.coord.ParentWatch} ends a child whose
 *       starter is gone.</li>
 *   <li>{@link org.cudaipc4j.coord.IdleStrategy}: how every wait of the project, in this library and above it,
 *       pauses between two looks ({@link org.cudaipc4j.coord.BackoffIdleStrategy},
 *       {@link org.cudaipc4j.coord.TimedIdleStrategy}).</li>
 * </ul>
 *
 * <p>Parent:
 * <pre>{@code
 * static final StructLayout SLOT = MemoryLayout.structLayout(JAVA_LONG.withName("value"));
 * static final VarHandle VALUE = SLOT.varHandle(MemoryLayout.PathElement.groupElement("value"));
 *
 * SharedSegment.reapStale();
 * try (ControlBlock block = ControlBlock.create(n, SLOT);
 *      Supervisor supervisor = new Supervisor(block, Supervisor.Options.defaults())) {
 *     supervisor.start("com.example.Child", argsPerChild);   // each child gets block.name() and its index
 *     for (int i = 0; i < n; i++) { VALUE.set(block.slotData(i), 0L, 42L); }
 *     block.publishAssignment();                             // or block.dismiss()
 *     ... block.publishReady();
 *     Supervisor.Outcome outcome = supervisor.awaitAll(Deadline.after(Duration.ofMinutes(5), "the run's limit"));
 *     outcome.failures().forEach(f -> System.out.printf("Process %d failed (%s)%n", f.index(), f.reason()));
 * }
 * }</pre>
 * To overlap the children's start with the block's creation, start them first
 * ({@code new Supervisor(n, options).startWithInput(commands)}), then {@code ControlBlock.create(n, SLOT)} and
 * {@code supervisor.watch(block)}, and write {@code block.name()} to their standard input: a name that nobody sees
 * before the block exists cannot be taken first by another process. The children join with
 * {@code ChildRuntime.join(name, SLOT, index, timeout)}.
 *
 * <p>Child:
 * <pre>{@code
 * try (ChildRuntime rt = ChildRuntime.join(segmentName, SLOT, index)) {
 *     if (!rt.block().awaitAssignment(timeout)) { return; }   // dismissed: leave quietly
 *     long value = (long) VALUE.get(rt.block().slotData(index), 0L);
 *     rt.block().awaitReady(timeout, "handles");
 *     Barrier barrier = rt.block().barrier(index, timeout);
 *     for (...) { work(); barrier.await(); }
 *     ... close what was opened ...; rt.setStatus(ProcessStatus.RELEASED);
 * } catch (CoordinationException e) { ... exit non-zero ... }
 * }</pre>
 */
package org.cudaipc4j.coord;
