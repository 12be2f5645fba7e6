// The simpleIPC rotation in C++ (runtime API, no Java), with the hand-off between processes and the fill kernel
// as parameters: the reference docs/performance.md uses to tell what a step costs the GPU with each way of
// handing a buffer on, apart from what the tool's own loop adds. Not part of the build.
//
// Build on a machine with the CUDA toolkit and driver:  nvcc -O3 -arch=sm_90 -o rotation rotation.cu -lcuda
// Run:   rotation kernels [BYTES]                  each kernel alone, 200 launches back to back on one stream
//        rotation N STEPS HANDOFF KERNEL [CHUNKS]  N processes on device 0, 64 MiB buffers, STEPS timed steps
//          HANDOFF  host   counters in pinned host memory (cuStreamWaitValue32 / cuStreamWriteValue32), as the tool
//                   dev    the same counters in device memory shared by IPC
//                   event  interprocess events, wait and record, as NVIDIA's sample
//                   free   no hand-off at all (the processes still rotate, unordered): the floor of N fills
//          KERNEL   byte (the sample's), bytecs, vec16 (the tool's before streaming stores), cs (the tool's now),
//                   x4, x4cs (4 stores per thread and turn), vec16h / x4h (half a wave), x4w2 (two waves),
//                   vec16b1k (1024-thread blocks), memset (cuMemsetD8Async)
//          CHUNKS   hand each buffer on in this many parts, each with its own counter or event (default 1)
// Prints "STEP n=.. K=.. mode=.. kernel=.. steps=.. us=<per step, the slowest process> fails=.. bad=..". Run it under
// an MPS daemon to measure with MPS; CUDA_DEVICE_MAX_CONNECTIONS=1 is what the tool gives its processes.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
typedef unsigned long long u64;

struct Shm {
  std::atomic<int> ready, arrive, sense, failed;
  cudaIpcMemHandle_t mem[16];
  cudaIpcMemHandle_t counters;
  cudaIpcEventHandle_t ev[64];
  double perStep[16];
  int bad[16];
};
static Shm* shm;

#define CK(x) do { auto e_ = (x); if (e_ != 0) { fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_); \
  if (shm) shm->failed.store(1); _exit(3); } } while (0)

__global__ void k_byte(unsigned char* d, unsigned char v, u64 n) {
  unsigned int s = gridDim.x * blockDim.x;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += s) d[i] = v;
}
__global__ void k_bytecs(unsigned char* d, unsigned char v, u64 n) {
  unsigned int s = gridDim.x * blockDim.x;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += s) __stcs(d + i, v);
}
template <bool CS> __global__ void k_vec16(unsigned char* d, unsigned char v, u64 n) {
  unsigned int w = v * 0x01010101u;
  uint4 q = make_uint4(w, w, w, w);
  uint4* b = (uint4*)d;
  unsigned int vecs = (unsigned int)(n >> 4), s = gridDim.x * blockDim.x;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < vecs; i += s) {
    if (CS) __stcs(&b[i], q); else b[i] = q;
  }
}
template <bool CS> __global__ void k_x4(unsigned char* d, unsigned char v, u64 n) {
  unsigned int w = v * 0x01010101u;
  uint4 q = make_uint4(w, w, w, w);
  uint4* b = (uint4*)d;
  unsigned int vecs = (unsigned int)(n >> 4), s = gridDim.x * blockDim.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * s < vecs; i += 4 * s) {
    if (CS) { __stcs(&b[i], q); __stcs(&b[i + s], q); __stcs(&b[i + 2 * s], q); __stcs(&b[i + 3 * s], q); }
    else { b[i] = q; b[i + s] = q; b[i + 2 * s] = q; b[i + 3 * s] = q; }
  }
  for (; i < vecs; i += s) b[i] = q;
}

struct Kernel { void* fn; int block; int grid; };
static const char* kernelNames[] = {"byte", "bytecs", "vec16", "cs", "x4", "x4cs", "vec16h", "x4h", "x4w2", "vec16b1k",
                                    "memset"};
static bool isKernelName(const char* name) {
  for (const char* k : kernelNames) if (!strcmp(k, name)) return true;
  return false;
}
static int sms;

// The byte kernels take a full wave (as the sample sizes its grid); the 16-byte ones as many blocks as the bytes
// need, up to a wave (as the tool does), or half or two waves where named so. fn == nullptr: cuMemsetD8Async.
static Kernel kernel(const char* name, u64 n) {
  Kernel k{nullptr, 256, 0};
  double waves = 1;
  if (!strcmp(name, "byte")) k = {(void*)k_byte, 128, 0};
  else if (!strcmp(name, "bytecs")) k = {(void*)k_bytecs, 128, 0};
  else if (!strcmp(name, "vec16")) k.fn = (void*)k_vec16<false>;
  else if (!strcmp(name, "cs")) k.fn = (void*)k_vec16<true>;
  else if (!strcmp(name, "x4")) k.fn = (void*)k_x4<false>;
  else if (!strcmp(name, "x4cs")) k.fn = (void*)k_x4<true>;
  else if (!strcmp(name, "vec16h")) { k.fn = (void*)k_vec16<false>; waves = 0.5; }
  else if (!strcmp(name, "x4h")) { k.fn = (void*)k_x4<false>; waves = 0.5; }
  else if (!strcmp(name, "x4w2")) { k.fn = (void*)k_x4<false>; waves = 2; }
  else if (!strcmp(name, "vec16b1k")) k = {(void*)k_vec16<false>, 1024, 0};
  else if (strcmp(name, "memset")) { fprintf(stderr, "unknown kernel %s\n", name); exit(64); }
  if (!k.fn) return Kernel{nullptr, 0, 0};
  int perSm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, k.fn, k.block, 0));
  int wave = (int)(perSm * sms * waves);
  if (k.fn == (void*)k_byte || k.fn == (void*)k_bytecs) {
    k.grid = wave;
  } else {
    u64 need = ((n >> 4) + k.block - 1) / k.block;
    k.grid = need < (u64)wave ? (int)need : wave;
  }
  return k;
}

static void fill(const Kernel& k, void* p, unsigned char v, u64 n, cudaStream_t st) {
  if (!k.fn) { CK(cuMemsetD8Async((CUdeviceptr)p, v, n, (CUstream)st)); return; }
  void* args[] = {&p, &v, &n};
  CK(cudaLaunchKernel(k.fn, k.grid, k.block, args, 0, st));
}

static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

// Sense-reversing barrier of the processes; gives up when any process failed.
static void barrier(int n, int& local) {
  local ^= 1;
  if (shm->arrive.fetch_add(1) + 1 == n) { shm->arrive.store(0); shm->sense.store(local); return; }
  while (shm->sense.load() != local) {
    if (shm->failed.load()) _exit(3);
  }
}

static int kernelsAlone(u64 n) {
  if (n < 16 || n > (1ull << 31)) {
    fprintf(stderr, "rotation kernels: 16 bytes to 2 GiB (the kernels index with 32 bits)\n");
    return 64;
  }
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  void* p;
  CK(cudaMalloc(&p, n));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int rep = 0; rep < 3; rep++) {
    for (const char* name : kernelNames) {
      Kernel k = kernel(name, n);
      for (int i = 0; i < 20; i++) fill(k, p, 1, n, st);
      CK(cudaEventRecord(a, st));
      for (int i = 0; i < 200; i++) fill(k, p, 1, n, st);
      CK(cudaEventRecord(b, st));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      printf("KERNEL %s bytes=%llu grid=%d block=%d us=%.2f GBps=%.0f\n", name, n, k.grid, k.block, ms * 1000 / 200,
             n / (ms / 200 * 1e-3) / 1e9);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && !strcmp(argv[1], "kernels")) return kernelsAlone(argc > 2 ? strtoull(argv[2], 0, 0) : (64ull << 20));
  if (argc < 5) {
    fprintf(stderr, "usage: rotation N STEPS host|dev|event|free KERNEL [CHUNKS] | rotation kernels [BYTES]\n");
    return 64;
  }
  int n = atoi(argv[1]);
  long steps = atol(argv[2]);
  const char* mode = argv[3];
  const char* kernelName = argv[4];
  int chunks = argc > 5 ? atoi(argv[5]) : 1;
  bool host = !strcmp(mode, "host"), dev = !strcmp(mode, "dev"), ev = !strcmp(mode, "event");
  bool none = !strcmp(mode, "free");
  if (n < 1 || n > 16 || steps < 1 || chunks < 1 || n * chunks > 64 || !(host || dev || ev || none)) {
    fprintf(stderr, "rotation: 1-16 processes, 1-64 counters in all, a hand-off of host|dev|event|free\n");
    return 64;
  }
  u64 bytes = 64ull << 20, chunk = bytes / chunks;
  if (chunk * chunks != bytes || chunk % 16 != 0) {
    fprintf(stderr, "rotation: CHUNKS must split 64 MiB into parts of a multiple of 16 bytes (1, 2, 4, ...)\n");
    return 64;
  }
  if (!isKernelName(kernelName)) { fprintf(stderr, "rotation: unknown kernel %s\n", kernelName); return 64; }
  alarm(600);  // a hung run ends: the parent dies of SIGALRM, and its children with it (PR_SET_PDEATHSIG)
  shm = (Shm*)mmap(0, sizeof(Shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  unsigned int* hostCounters = (unsigned int*)mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  memset((void*)shm, 0, sizeof(Shm));
  memset(hostCounters, 0, 4096);
  pid_t parent = getpid();
  pid_t kids[16];
  // The children are forked before this process touches CUDA, and wait for its buffers.
  for (int id = 0; id < n; id++) {
    if ((kids[id] = fork()) < 0) {
      perror("fork");
      shm->failed.store(1);
      for (int k = 0; k < id; k++) kill(kids[k], SIGKILL);
      return 1;
    }
    if (kids[id] != 0) continue;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(3);
    while (!shm->ready.load()) {
      if (shm->failed.load()) _exit(3);
      usleep(100);
    }
    CK(cudaSetDevice(0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    void* buf[16];
    cudaEvent_t evs[64];
    CUdeviceptr counter[64];
    for (int p = 0; p < n; p++) CK(cudaIpcOpenMemHandle(&buf[p], shm->mem[p], cudaIpcMemLazyEnablePeerAccess));
    if (ev) for (int q = 0; q < n * chunks; q++) CK(cudaIpcOpenEventHandle(&evs[q], shm->ev[q]));
    if (dev) {
      void* c;
      CK(cudaIpcOpenMemHandle(&c, shm->counters, cudaIpcMemLazyEnablePeerAccess));
      for (int q = 0; q < n * chunks; q++) counter[q] = (CUdeviceptr)c + 256 * q;
    }
    if (host) {
      CK(cudaHostRegister(hostCounters, 4096, cudaHostRegisterMapped | cudaHostRegisterPortable));
      void* d;
      CK(cudaHostGetDevicePointer(&d, hostCounters, 0));
      for (int q = 0; q < n * chunks; q++) counter[q] = (CUdeviceptr)d + 64 * q;
    }
    Kernel k = kernel(kernelName, chunk);
    int local = 0;
    long warm = 200;
    double t0 = 0;
    bool handOff = n > 1 && !none;
    for (long step = 0; step < warm + steps; step++) {
      if (step == warm) { CK(cudaStreamSynchronize(st)); barrier(n, local); t0 = now(); }
      int b = (int)((step + id) % n);  // the sample's buffer for this step; its writer a step before was process id + 1
      for (int c = 0; c < chunks; c++) {
        int q = b * chunks + c;
        if (handOff && !ev) CK(cuStreamWaitValue32((CUstream)st, counter[q], (unsigned)step, CU_STREAM_WAIT_VALUE_GEQ));
        if (handOff && ev) CK(cudaStreamWaitEvent(st, evs[q], 0));
        fill(k, (char*)buf[b] + c * chunk, (unsigned char)id, chunk, st);
        if (handOff && !ev) CK(cuStreamWriteValue32((CUstream)st, counter[q], (unsigned)step + 1, 0));
        if (handOff && ev) CK(cudaEventRecord(evs[q], st));
      }
      barrier(n, local);  // as the sample: no process re-records an event before every waiter has enqueued its wait
    }
    CK(cudaStreamSynchronize(st));
    double t1 = now();
    barrier(n, local);
    shm->perStep[id] = (t1 - t0) / steps * 1e6;
    // Buffer id's last writer is the process p with (last + p) % n == id. Without a hand-off the processes'
    // fills of one buffer are not ordered: nothing to check.
    if (handOff || n == 1) {
      unsigned char ends[2];
      CK(cudaMemcpy(ends, buf[id], 1, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(ends + 1, (char*)buf[id] + bytes - 1, 1, cudaMemcpyDeviceToHost));
      long last = warm + steps - 1;
      unsigned char want = (unsigned char)(((id - last) % n + n) % n);
      shm->bad[id] = ends[0] != want || ends[1] != want;
    }
    // Reset, then exit (not _exit): without the reset the exporting parent left a cuda.shm.* file in /dev/shm after
    // every run on driver 580; with it, no process of a run that passed left one. (A failed call ends its process
    // with _exit, see CK, and may leave its file.)
    cudaDeviceReset();
    exit(0);
  }
  CK(cudaSetDevice(0));
  void* bufs[16];
  cudaEvent_t evs[64];
  void* counters;
  for (int p = 0; p < n; p++) {
    CK(cudaMalloc(&bufs[p], bytes));
    CK(cudaMemset(bufs[p], 0, bytes));
    CK(cudaIpcGetMemHandle(&shm->mem[p], bufs[p]));
  }
  for (int q = 0; q < n * chunks; q++) {
    CK(cudaEventCreateWithFlags(&evs[q], cudaEventDisableTiming | cudaEventInterprocess));
    CK(cudaIpcGetEventHandle(&shm->ev[q], evs[q]));
  }
  CK(cudaMalloc(&counters, 2 << 20));
  CK(cudaMemset(counters, 0, 2 << 20));
  CK(cudaIpcGetMemHandle(&shm->counters, counters));
  CK(cudaDeviceSynchronize());
  shm->ready.store(1);
  // Reaps the children as they end; once one failed, the others may wait on the device for its writes for ever:
  // they are killed.
  int fails = 0;
  for (int left = n; left > 0; left--) {
    int status;
    pid_t pid = wait(&status);
    if (pid < 0) break;
    for (int id = 0; id < n; id++) if (kids[id] == pid) kids[id] = 0;  // reaped: its pid may be reused
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      fails++;
      shm->failed.store(1);
      for (int id = 0; id < n; id++) if (kids[id] > 0) kill(kids[id], SIGKILL);
    }
  }
  double slowest = 0;
  int bad = 0;
  for (int id = 0; id < n; id++) {
    if (shm->perStep[id] > slowest) slowest = shm->perStep[id];
    bad += shm->bad[id];
  }
  printf("STEP n=%d K=%d mode=%s kernel=%s steps=%ld us=%.2f fails=%d bad=%d\n", n, chunks, mode, kernelName, steps,
         slowest, fails, bad);
  for (int p = 0; p < n; p++) CK(cudaFree(bufs[p]));
  for (int q = 0; q < n * chunks; q++) CK(cudaEventDestroy(evs[q]));
  CK(cudaFree(counters));
  cudaDeviceReset();  // see the children's exit
  return fails || bad ? 1 : 0;
}
