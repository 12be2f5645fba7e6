/**
 * Sharing device memory and events between processes: legacy IPC handles of {@code cuMemAlloc_v2} memory and of
 * interprocess events, VMM allocations and stream-ordered memory pools exported as POSIX file descriptors or fabric
 * handles, the descriptor that travels for any of them ({@link org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor}) and
 * the importer that maps it ({@link org.cudaipc4j.cuda.ipc.MemoryImporter}); what each device supports
 * ({@link org.cudaipc4j.cuda.ipc.IpcCapabilities}); the driver's interprocess files
 * ({@link org.cudaipc4j.cuda.ipc.DriverFiles}).
 * Uses only {@code java.base}, the typed resources ({@code org.cudaipc4j.cuda}, whose
 * {@link org.cudaipc4j.cuda.ForeignResource} owns the mappings made here), this module's {@code driver} package and
 * the libraries' base ({@code org.cudaipc4j.base}).
 */
package org.cudaipc4j.cuda.ipc;
