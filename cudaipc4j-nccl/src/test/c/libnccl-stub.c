// A stand-in for NCCL (libnccl.so.2) with no GPU and no peer behind it, for the tests of the Java binding
// (NcclStubTest): every function the binding declares, with nccl.h's name and C signature, writes its call and
// arguments to a log and returns at once. Communicators are made at once too; a non-blocking one reports
// ncclInProgress to one poll of ncclCommGetAsyncError after each call that NCCL finishes in the background (making,
// splitting, finalising). Two functions that are not NCCL's let the test read the log and make a call fail.
// Built by the test with cc: -DSTUB_VERSION=N sets the version reported, -DSTUB_WITHOUT_REGISTER leaves out
// ncclCommRegister and ncclCommDeregister.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STUB_VERSION
#define STUB_VERSION 22809
#endif

typedef enum {
  ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3, ncclInvalidArgument = 4,
  ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7
} ncclResult_t;
typedef struct { char internal[128]; } ncclUniqueId;  // passed by value
typedef struct {                                       // ncclConfig_t of NCCL 2.28
  size_t size; unsigned int magic; unsigned int version; int blocking; int cgaClusterSize; int minCTAs; int maxCTAs;
  const char *netName; int splitShare; int trafficClass; const char *commName; int collnetEnable; int CTAPolicy;
  int shrinkShare; int nvlsCTAs; int nChannelsPerNetPeer; int nvlinkCentricSched;
} ncclConfig_t;
typedef struct ncclComm { int id; int nranks; int rank; int blocking; int pending; } *ncclComm_t;
typedef void *cudaStream_t;

static char log_text[16384], taken[16384];
static size_t log_length;
static int comms, registrations;
static char last_error[256];
static char fail_function[64];
static ncclResult_t fail_result;
static char fail_message[256];

static void note(const char *format, ...) {
  if (log_length > 0 && log_length < sizeof log_text) log_length += snprintf(log_text + log_length,
      sizeof log_text - log_length, "; ");
  va_list args;
  va_start(args, format);
  if (log_length < sizeof log_text) log_length += vsnprintf(log_text + log_length, sizeof log_text - log_length,
      format, args);
  va_end(args);
}

// Returns the failure set for `function` by ncclStubFailNext (once), else `result`.
static ncclResult_t outcome(const char *function, ncclResult_t result) {
  if (strcmp(function, fail_function) != 0) return result;
  fail_function[0] = 0;
  snprintf(last_error, sizeof last_error, "%s", fail_message);
  return fail_result;
}

// A call that NCCL finishes in the background: in progress once, for a non-blocking communicator.
static ncclResult_t started(ncclComm_t comm) {
  if (comm->blocking) return ncclSuccess;
  comm->pending = 1;
  return ncclInProgress;
}

static ncclComm_t new_comm(int nranks, int rank, const ncclConfig_t *config) {
  ncclComm_t comm = calloc(1, sizeof *comm);
  comm->id = ++comms;
  comm->nranks = nranks;
  comm->rank = rank;
  comm->blocking = config->blocking != 0;  // NCCL_CONFIG_UNDEF_INT means blocking too
  return comm;
}

static const char *text(const char *s) { return s ? s : "NULL"; }
static const char *config_text(const ncclConfig_t *c) {
  static char out[256];
  snprintf(out, sizeof out, "{size=%zu magic=%x version=%u blocking=%d splitShare=%d commName=%s netName=%s}",
           c->size, c->magic, c->version, c->blocking, c->splitShare, text(c->commName), text(c->netName));
  return out;
}
static const char *out_text(const void *p) { return p ? "out" : "NULL"; }

// What the test reads and sets; not NCCL's.
const char *ncclStubTakeLog(void) {
  memcpy(taken, log_text, log_length + 1);
  log_length = 0;
  log_text[0] = 0;
  return taken;
}
void ncclStubFailNext(const char *function, int result, const char *lastError) {
  snprintf(fail_function, sizeof fail_function, "%s", function);
  fail_result = (ncclResult_t) result;
  snprintf(fail_message, sizeof fail_message, "%s", lastError);
}

ncclResult_t ncclGetVersion(int *version) { *version = STUB_VERSION; return ncclSuccess; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  note("ncclGetUniqueId(%s)", out_text(id));
  for (int i = 0; i < 128; i++) id->internal[i] = (char) (i + 1);
  return outcome("ncclGetUniqueId", ncclSuccess);
}

const char *ncclGetErrorString(ncclResult_t result) {
  note("ncclGetErrorString(%d)", result);
  switch (result) {
    case ncclSuccess: return "no error";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

const char *ncclGetLastError(ncclComm_t comm) {
  note("ncclGetLastError(comm%d)", comm ? comm->id : 0);
  return last_error;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config) {
  const unsigned char *b = (const unsigned char *) id.internal;
  note("ncclCommInitRankConfig(%s, %d, id %02x%02x..%02x%02x, %d, %s)", out_text(comm), nranks, b[0], b[1], b[126],
       b[127], rank, config_text(config));
  *comm = new_comm(nranks, rank, config);
  return outcome("ncclCommInitRankConfig", started(*comm));
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config) {
  note("ncclCommSplit(comm%d, %d, %d, %s, %s)", comm->id, color, key, out_text(newcomm), config_text(config));
  *newcomm = color < 0 ? NULL : new_comm(1, 0, config);
  if (*newcomm && !(*newcomm)->blocking) (*newcomm)->pending = 1;
  return outcome("ncclCommSplit", started(comm));
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  note("ncclCommFinalize(comm%d)", comm->id);
  return outcome("ncclCommFinalize", started(comm));
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  note("ncclCommDestroy(comm%d)", comm->id);
  return outcome("ncclCommDestroy", ncclSuccess);  // not freed: the log names communicators by their number
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  note("ncclCommAbort(comm%d)", comm->id);
  return outcome("ncclCommAbort", ncclSuccess);
}

// Polled: not logged, so that the log does not depend on how often a wait looks.
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
  *asyncError = comm->pending ? ncclInProgress : ncclSuccess;
  comm->pending = 0;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  note("ncclCommCount(comm%d, %s)", comm->id, out_text(count));
  *count = comm->nranks;
  return outcome("ncclCommCount", ncclSuccess);
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  note("ncclCommCuDevice(comm%d, %s)", comm->id, out_text(device));
  *device = 0;
  return outcome("ncclCommCuDevice", ncclSuccess);
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  note("ncclCommUserRank(comm%d, %s)", comm->id, out_text(rank));
  *rank = comm->rank;
  return outcome("ncclCommUserRank", ncclSuccess);
}

#ifndef STUB_WITHOUT_REGISTER
ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle) {
  note("ncclCommRegister(comm%d, %p, %zu, %s)", comm->id, buff, size, out_text(handle));
  *handle = (void *) (long) ++registrations;
  return outcome("ncclCommRegister", ncclSuccess);
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle) {
  note("ncclCommDeregister(comm%d, registration%ld)", comm->id, (long) handle);
  return outcome("ncclCommDeregister", ncclSuccess);
}
#endif

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, int datatype, int root,
                           ncclComm_t comm, cudaStream_t stream) {
  note("ncclBroadcast(%p, %p, %zu, %d, %d, comm%d, %p)", sendbuff, recvbuff, count, datatype, root, comm->id, stream);
  return outcome("ncclBroadcast", ncclSuccess);
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op,
                           ncclComm_t comm, cudaStream_t stream) {
  note("ncclAllReduce(%p, %p, %zu, %d, %d, comm%d, %p)", sendbuff, recvbuff, count, datatype, op, comm->id, stream);
  return outcome("ncclAllReduce", ncclSuccess);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, int datatype, int op,
                               ncclComm_t comm, cudaStream_t stream) {
  note("ncclReduceScatter(%p, %p, %zu, %d, %d, comm%d, %p)", sendbuff, recvbuff, recvcount, datatype, op, comm->id,
       stream);
  return outcome("ncclReduceScatter", ncclSuccess);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, int datatype, ncclComm_t comm,
                           cudaStream_t stream) {
  note("ncclAllGather(%p, %p, %zu, %d, comm%d, %p)", sendbuff, recvbuff, sendcount, datatype, comm->id, stream);
  return outcome("ncclAllGather", ncclSuccess);
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, int datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  note("ncclSend(%p, %zu, %d, %d, comm%d, %p)", sendbuff, count, datatype, peer, comm->id, stream);
  return outcome("ncclSend", ncclSuccess);
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, int datatype, int peer, ncclComm_t comm, cudaStream_t stream) {
  note("ncclRecv(%p, %zu, %d, %d, comm%d, %p)", recvbuff, count, datatype, peer, comm->id, stream);
  return outcome("ncclRecv", ncclSuccess);
}

ncclResult_t ncclGroupStart(void) {
  note("ncclGroupStart()");
  return outcome("ncclGroupStart", ncclSuccess);
}

ncclResult_t ncclGroupEnd(void) {
  note("ncclGroupEnd()");
  return outcome("ncclGroupEnd", ncclSuccess);
}
