// A stand-in for the CUDA driver (libcuda.so.1) with no GPU behind it, for timing the Java binding and the torch
// reader alone (scripts/stub-reader-bench.sh): every function the tool links is here with the driver's name and C
// signature, does no GPU's work and returns at once. Device 0 reports itself IPC-capable; allocations and IPC opens
// hand out addresses no memory is behind (only copies to the host write, zeros); an IPC handle of 64 zero bytes (no
// process's) is refused, as the driver refuses one, so the reader's warm-up takes its refusal paths.
// -DSTUB_DEVICES=N shows N devices, device d's UUID bytes d*16 to d*16+15, and copies to the host in a context of
// device d write d in every byte, so that a test sees which device was used.
// -DSTUB_RECORDS_NEVER_RUN plays a group whose interprocess events were last recorded by a process that died: such an
// event (made with CU_EVENT_INTERPROCESS or opened from a handle) never completes; a stream that waits on it never
// gets past the wait, nor does any event recorded there later; a query of either answers CUDA_ERROR_NOT_READY and a
// synchronisation with either blocks for good, as the driver's do (docs/pitfalls: a dead process's record is
// cancelled, and nothing releases the waits made on it).
// Built by scripts/stub-reader-bench.sh with cc; never shipped, loaded only through LD_LIBRARY_PATH.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int CUresult;
typedef struct { unsigned char bytes[64]; } IpcHandle;  // CUipcMemHandle, CUipcEventHandle: passed by value

enum { SUCCESS = 0, INVALID_VALUE = 1, INVALID_CONTEXT = 201, NOT_READY = 600 };
enum { EVENT_INTERPROCESS = 0x4 };

static const uint64_t SPACING = 8ULL << 30;        // between the addresses handed out
static uint64_t next_address = 0x7f0000000000ULL;  // far above what the process maps itself
static uint64_t next_object = 0x1000;              // streams, events, contexts' handles
static __thread void *current_context;

#ifndef STUB_DEVICES
#define STUB_DEVICES 1
#endif
enum { CONTEXTS = 0xC0 };  // device d's primary context is CONTEXTS + d

// The device of this thread's context, 0 without one of ours.
static unsigned char current_device(void) {
  uintptr_t c = (uintptr_t) current_context;
  return c >= CONTEXTS && c < CONTEXTS + STUB_DEVICES ? (unsigned char) (c - CONTEXTS) : 0;
}

static uint64_t address(void) { uint64_t a = next_address; next_address += SPACING; return a; }
static void *object(void) { return (void *) (next_object++); }

// Events that never complete and streams held by a wait on one (STUB_RECORDS_NEVER_RUN), by object number.
#ifdef STUB_RECORDS_NEVER_RUN
enum { TRACKED = 1 << 16 };
static unsigned char never_done[TRACKED];
static unsigned char *flag(void *o) {
  static unsigned char untracked;
  uintptr_t i = (uintptr_t) o - 0x1000;
  return i < TRACKED ? &never_done[i] : &untracked;
}
static int pending(void *o) { return *flag(o); }
static void set_pending(void *o) { *flag(o) = 1; }
#else
static int pending(void *o) { return 0; }
static void set_pending(void *o) {}
#endif
static int any_stuck;
static CUresult block_for_good(void) {
  while (1) pause();
  return SUCCESS;
}
static int none(const IpcHandle *h) {
  for (int i = 0; i < 64; i++) {
    if (h->bytes[i]) return 0;
  }
  return 1;
}

// Initialisation and devices: one device (or STUB_DEVICES), compute capability 9.0, every capability the tool asks for.
CUresult cuInit(unsigned flags) { return SUCCESS; }
CUresult cuDriverGetVersion(int *version) { *version = 13000; return SUCCESS; }
CUresult cuDeviceGetCount(int *count) { *count = STUB_DEVICES; return SUCCESS; }
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= STUB_DEVICES) return INVALID_VALUE;
  *device = ordinal;
  return SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  switch (attribute) {
    case 1: *value = 1024; break;   // MAX_THREADS_PER_BLOCK
    case 16: *value = 132; break;   // MULTIPROCESSOR_COUNT
    case 20: *value = 0; break;     // COMPUTE_MODE: default
    case 39: *value = 2048; break;  // MAX_THREADS_PER_MULTIPROCESSOR
    case 75: *value = 9; break;     // COMPUTE_CAPABILITY_MAJOR
    case 76: *value = 0; break;     // COMPUTE_CAPABILITY_MINOR
    case 119: *value = 9; break;    // MEMPOOL_SUPPORTED_HANDLE_TYPES: POSIX fd, fabric
    default: *value = 1;            // unified addressing, VMM, IPC events, pools, ...: supported
  }
  return SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, int device) { strncpy(name, "stub", length); return SUCCESS; }
CUresult cuDeviceGetUuid_v2(unsigned char *uuid, int device) {  // device 0: GPU-00010203-0405-0607-0809-0a0b0c0d0e0f
  for (int i = 0; i < 16; i++) uuid[i] = (unsigned char) (device * 16 + i);
  return SUCCESS;
}
CUresult cuDeviceGetPCIBusId(char *id, int length, int device) { strncpy(id, "0000:00:00.0", length); return SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) { *bytes = 80ULL << 30; return SUCCESS; }
CUresult cuDeviceCanAccessPeer(int *can, int device, int peer) { *can = 0; return SUCCESS; }

// Contexts
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  *context = (void *) (uintptr_t) (CONTEXTS + device);
  return SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) { return SUCCESS; }
CUresult cuDevicePrimaryCtxGetState(int device, unsigned *flags, int *active) {
  *flags = 0;
  *active = 1;
  return SUCCESS;
}
CUresult cuCtxSetCurrent(void *context) { current_context = context; return SUCCESS; }
CUresult cuCtxGetCurrent(void **context) { *context = current_context; return SUCCESS; }
CUresult cuCtxSynchronize(void) { return any_stuck ? block_for_good() : SUCCESS; }
CUresult cuCtxEnablePeerAccess(void *peer, unsigned flags) { return SUCCESS; }

// Streams and events
CUresult cuStreamCreate(void **stream, unsigned flags) { *stream = object(); return SUCCESS; }
CUresult cuStreamDestroy_v2(void *stream) { return SUCCESS; }
CUresult cuStreamSynchronize(void *stream) { return pending(stream) ? block_for_good() : SUCCESS; }
CUresult cuStreamQuery(void *stream) { return pending(stream) ? NOT_READY : SUCCESS; }
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  if (pending(event)) {
    set_pending(stream);
    any_stuck = 1;
  }
  return SUCCESS;
}
CUresult cuStreamWaitValue32_v2(void *stream, uint64_t a, uint32_t v, unsigned flags) { return SUCCESS; }
CUresult cuStreamWriteValue32_v2(void *stream, uint64_t a, uint32_t v, unsigned flags) { return SUCCESS; }
CUresult cuEventCreate(void **event, unsigned flags) {
  *event = object();
  if (flags & EVENT_INTERPROCESS) set_pending(*event);
  return SUCCESS;
}
CUresult cuEventDestroy_v2(void *event) { return SUCCESS; }
CUresult cuEventRecord(void *event, void *stream) {
  if (pending(stream)) set_pending(event);
  return SUCCESS;
}
CUresult cuEventSynchronize(void *event) { return pending(event) ? block_for_good() : SUCCESS; }
CUresult cuEventQuery(void *event) { return pending(event) ? NOT_READY : SUCCESS; }
CUresult cuEventElapsedTime(float *ms, void *start, void *end) { *ms = 0.001f; return SUCCESS; }
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) { *ms = 0.001f; return SUCCESS; }

// IPC
// An exported handle carries the exporter's pid and what it names, so that two exports give two handles.
CUresult cuIpcGetEventHandle(IpcHandle *handle, void *event) {
  memset(handle, 0, sizeof *handle);
  handle->bytes[0] = 1;
  *(uint32_t *) (handle->bytes + 4) = (uint32_t) getpid();
  *(uint64_t *) (handle->bytes + 8) = (uint64_t) (uintptr_t) event;
  return SUCCESS;
}
CUresult cuIpcOpenEventHandle(void **event, IpcHandle handle) {
  if (none(&handle)) return INVALID_CONTEXT;  // what the driver answers for a handle of no other process
  *event = object();
  set_pending(*event);
  return SUCCESS;
}
CUresult cuIpcGetMemHandle(IpcHandle *handle, uint64_t pointer) {
  memset(handle, 0, sizeof *handle);
  handle->bytes[0] = 2;
  *(uint32_t *) (handle->bytes + 4) = (uint32_t) getpid();
  *(uint64_t *) (handle->bytes + 8) = pointer;
  return SUCCESS;
}
CUresult cuIpcOpenMemHandle_v2(uint64_t *pointer, IpcHandle handle, unsigned flags) {
  if (none(&handle)) return INVALID_VALUE;
  *pointer = address();
  return SUCCESS;
}
CUresult cuIpcCloseMemHandle(uint64_t pointer) { return SUCCESS; }

// Memory: every allocation reports 4 GiB, the base rounded down to the spacing.
CUresult cuMemGetAddressRange_v2(uint64_t *base, size_t *size, uint64_t pointer) {
  if (base) *base = pointer & ~(SPACING - 1);
  if (size) *size = 4ULL << 30;
  return SUCCESS;
}
CUresult cuMemAlloc_v2(uint64_t *pointer, size_t bytes) { *pointer = address(); return SUCCESS; }
CUresult cuMemFree_v2(uint64_t pointer) { return SUCCESS; }
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  *free_bytes = 70ULL << 30;
  *total = 80ULL << 30;
  return SUCCESS;
}
CUresult cuMemAllocFromPoolAsync(uint64_t *pointer, size_t bytes, void *pool, void *stream) {
  *pointer = address();
  return SUCCESS;
}
CUresult cuMemFreeAsync(uint64_t pointer, void *stream) { return SUCCESS; }
CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned flags) {
  *pointer = calloc(1, bytes ? bytes : 1);
  return *pointer ? SUCCESS : 2;  // CUDA_ERROR_OUT_OF_MEMORY
}
CUresult cuMemFreeHost(void *pointer) { free(pointer); return SUCCESS; }
CUresult cuMemHostGetDevicePointer_v2(uint64_t *device, void *host, unsigned flags) {
  *device = (uint64_t) host;
  return SUCCESS;
}
CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags) { return SUCCESS; }
CUresult cuMemHostUnregister(void *pointer) { return SUCCESS; }
CUresult cuMemcpyDtoDAsync_v2(uint64_t to, uint64_t from, size_t bytes, void *stream) { return SUCCESS; }
CUresult cuMemcpyDtoD_v2(uint64_t to, uint64_t from, size_t bytes) { return SUCCESS; }
CUresult cuMemcpyDtoHAsync_v2(void *to, uint64_t from, size_t bytes, void *stream) {
  memset(to, current_device(), bytes);
  return SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *to, uint64_t from, size_t bytes) {
  memset(to, current_device(), bytes);
  return SUCCESS;
}
CUresult cuMemcpyHtoDAsync_v2(uint64_t to, const void *from, size_t bytes, void *stream) { return SUCCESS; }
CUresult cuMemcpyHtoD_v2(uint64_t to, const void *from, size_t bytes) { return SUCCESS; }
CUresult cuMemsetD8Async(uint64_t to, unsigned char value, size_t bytes, void *stream) { return SUCCESS; }
CUresult cuMemsetD8_v2(uint64_t to, unsigned char value, size_t bytes) { return SUCCESS; }

// Virtual memory management: an exported allocation is an empty memfd (a real descriptor the caller may close).
CUresult cuMemGetAllocationGranularity(size_t *granularity, void *properties, int option) {
  *granularity = 2 << 20;
  return SUCCESS;
}
CUresult cuMemCreate(uint64_t *handle, size_t bytes, void *properties, unsigned long long flags) {
  *handle = next_object++;
  return SUCCESS;
}
CUresult cuMemRelease(uint64_t handle) { return SUCCESS; }
CUresult cuMemExportToShareableHandle(void *shareable, uint64_t handle, int type, unsigned long long flags) {
  *(int *) shareable = memfd_create("libcuda-stub", MFD_CLOEXEC);
  return SUCCESS;
}
CUresult cuMemImportFromShareableHandle(uint64_t *handle, void *os_handle, int type) {
  *handle = next_object++;
  return SUCCESS;
}
CUresult cuMemAddressReserve(uint64_t *pointer, size_t bytes, size_t alignment, uint64_t at, unsigned long long f) {
  *pointer = address();
  return SUCCESS;
}
CUresult cuMemAddressFree(uint64_t pointer, size_t bytes) { return SUCCESS; }
CUresult cuMemMap(uint64_t pointer, size_t bytes, size_t offset, uint64_t handle, unsigned long long flags) {
  return SUCCESS;
}
CUresult cuMemUnmap(uint64_t pointer, size_t bytes) { return SUCCESS; }
CUresult cuMemSetAccess(uint64_t pointer, size_t bytes, void *descriptors, size_t count) { return SUCCESS; }

// Memory pools
CUresult cuMemPoolCreate(void **pool, void *properties) { *pool = object(); return SUCCESS; }
CUresult cuMemPoolDestroy(void *pool) { return SUCCESS; }
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) { return SUCCESS; }
CUresult cuMemPoolSetAccess(void *pool, void *descriptors, size_t count) { return SUCCESS; }
CUresult cuMemPoolExportToShareableHandle(void *shareable, void *pool, int type, unsigned long long flags) {
  *(int *) shareable = memfd_create("libcuda-stub-pool", MFD_CLOEXEC);
  return SUCCESS;
}
CUresult cuMemPoolImportFromShareableHandle(void **pool, void *os_handle, int type, unsigned long long flags) {
  *pool = object();
  return SUCCESS;
}
CUresult cuMemPoolExportPointer(void *data, uint64_t pointer) {
  memset(data, 0, 64);
  ((unsigned char *) data)[0] = 3;
  return SUCCESS;
}
CUresult cuMemPoolImportPointer(uint64_t *pointer, void *pool, void *data) {
  if (!data || !pointer || none(data)) return INVALID_VALUE;  // export data of no buffer, as the driver answers it
  *pointer = address();
  return SUCCESS;
}

// Modules and kernels: loaded, never run.
CUresult cuModuleLoadData(void **module, const void *image) { *module = object(); return SUCCESS; }
CUresult cuModuleUnload(void *module) { return SUCCESS; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  *function = object();
  return SUCCESS;
}
CUresult cuFuncGetAttribute(int *value, int attribute, void *function) { *value = 1024; return SUCCESS; }
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **parameters, void **extra) {
  return SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *function, int size, size_t shared) {
  *blocks = 2;
  return SUCCESS;
}

// Errors
CUresult cuGetErrorName(int error, const char **name) {
  *name = error == INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT"
        : error == INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
        : error == NOT_READY ? "CUDA_ERROR_NOT_READY" : "CUDA_ERROR_UNKNOWN";
  return SUCCESS;
}
CUresult cuGetErrorString(int error, const char **text) { *text = "an error of the stub driver"; return SUCCESS; }
