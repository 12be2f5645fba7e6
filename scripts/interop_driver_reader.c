/*
 * The limit under any reader of torch's shares: a C program that makes only the driver calls, from its own exec.
 * scripts/interop-bench.sh builds it with the CUDA toolkit on the GPU machine and runs it beside the Java and torch
 * readers (the scale part, docs/performance.md):
 *
 *   nvcc -O2 -o interop-driver-reader scripts/interop_driver_reader.c -lcuda
 *   interop-driver-reader SHARES.lines EXEC_EPOCH_US
 *
 * SHARES.lines holds the shares of a descriptor file as scripts/interop_bench_py.py's torch producer writes them for
 * this program (c_line), one share a line, seven fields apart by one space:
 *
 *   DEVICE_UUID(32 hex) HANDLE(hex) STORAGE_OFFSET_BYTES BYTES EVENT(128 hex, or -) COUNTER_FILE(or -) SLOT(or -)
 *
 * (BYTES: the tensor's; EVENT is - where the share asks for no wait.) *
 * HANDLE is torch's handle as it shares it (docs/interop-format.md, ../shared spec): 64 raw bytes, or version 1 or 2
 * with type 'c' (a cudaIpcMemHandle_t) or 'e' (expandable segments: pid, chunk size, chunk count, the producer's fd
 * per chunk). Before the clock: the file read and parsed. The clock: cuInit, the device by its UUID, the primary
 * context retained and made current, a stream; then per share: the storage opened once per distinct handle
 * (cuIpcOpenMemHandle; or pidfd_getfd of each chunk's fd, cuMemImportFromShareableHandle, one address range,
 * cuMemMap and cuMemSetAccess, the fd copies closed), the event opened, waited on by the stream and destroyed. It
 * prints one JSON line in the readers' shape: exec_to_open_us (from EXEC_EPOCH_US, CLOCK_REALTIME microseconds the
 * script took just before exec) and open_us (the per-share calls alone), then after the clock gives back what it
 * opened and each share's slot in torch's counter file (once; never below 0), as a reader's close does.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define COUNTER_HEADER 64
#define COUNTER_SLOTS 10000
#define MAX_CHUNKS 4096

typedef struct {
    char *handle_hex;  /* the cache key: tensors of one block share their handle */
    unsigned long long offset;
    unsigned long long bytes;
    int has_event;
    unsigned char event[64];
    char *counter_file;
    long slot;
} Share;

typedef struct {
    char *handle_hex;
    int expandable;
    CUdeviceptr base;
    size_t range;           /* 'e': the reserved range */
    size_t chunk;           /* 'e': bytes per chunk */
    size_t chunks;          /* 'e': chunks mapped */
    CUmemGenericAllocationHandle *imported;
} Block;

static void die(const char *what) {
    fprintf(stderr, "interop-driver-reader: %s\n", what);
    exit(1);
}

static void check(CUresult r, const char *call) {
    if (r != CUDA_SUCCESS) {
        const char *name = NULL;
        cuGetErrorName(r, &name);
        fprintf(stderr, "interop-driver-reader: %s failed: %s (%d)\n", call, name ? name : "?", (int) r);
        exit(1);
    }
}

static long long epoch_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long) t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static long long mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes hex into out (at most max bytes); returns the byte count, or -1 for bad hex. */
static long unhex(const char *hex, unsigned char *out, size_t max) {
    size_t n = strlen(hex);
    if (n % 2 != 0 || n / 2 > max) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (unsigned char) (hi << 4 | lo);
    }
    return (long) (n / 2);
}

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int32_t le32(const unsigned char *p) {
    return (int32_t) ((uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24);
}

static char *slurp(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open the shares file");
    struct stat st;
    if (fstat(fileno(f), &st) != 0) die("cannot stat the shares file");
    char *text = malloc((size_t) st.st_size + 1);
    if (!text) die("out of memory");
    size_t got = fread(text, 1, (size_t) st.st_size, f);
    fclose(f);
    text[got] = '\0';
    *length = got;
    return text;
}

/* Opens (imports and maps) the storage behind a handle; the range starts at block->base. */
static void open_block(Block *block, CUdevice device) {
    static unsigned char h[26 + 4 * MAX_CHUNKS];
    long n = unhex(block->handle_hex, h, sizeof h);
    if (n < 0) die("a handle is not hex");
    const unsigned char *ipc = NULL;
    if (n == 64) {
        ipc = h;  /* torch <= 2.4: the raw cudaIpcMemHandle_t */
    } else if (n == 66 && (h[0] == 1 || h[0] == 2) && h[1] == 'c') {
        ipc = h + 2;
    }
    if (ipc != NULL) {
        CUipcMemHandle handle;
        memcpy(handle.reserved, ipc, sizeof handle.reserved);
        check(cuIpcOpenMemHandle(&block->base, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
        return;
    }
    if (n < 26 || !(h[0] == 1 || h[0] == 2) || h[1] != 'e') die("a handle is neither 'c' nor 'e' of version 1 or 2");
    int32_t pid = le32(h + 2);
    uint64_t chunk = le64(h + 10), chunks = le64(h + 18);
    if (chunks < 1 || chunks > MAX_CHUNKS || (uint64_t) n != 26 + 4 * chunks) {
        die("an 'e' handle's length is not that of POSIX fds (fabric handles are not read here)");
    }
    static int pidfd = -1, pidfd_of = 0;  /* one producer: its pidfd opened once */
    if (pidfd < 0 || pidfd_of != pid) {
        if (pidfd >= 0) close(pidfd);
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        pidfd_of = pid;
        if (pidfd < 0) {
            perror("interop-driver-reader: pidfd_open");
            exit(1);
        }
    }
    block->expandable = 1;
    block->chunk = chunk;
    block->chunks = chunks;
    block->range = chunk * chunks;
    block->imported = calloc(chunks, sizeof *block->imported);
    if (!block->imported) die("out of memory");
    check(cuMemAddressReserve(&block->base, block->range, 0, 0, 0), "cuMemAddressReserve");
    for (uint64_t i = 0; i < chunks; i++) {
        int fd = (int) syscall(SYS_pidfd_getfd, pidfd, le32(h + 26 + 4 * i), 0);
        if (fd < 0) {
            perror("interop-driver-reader: pidfd_getfd");
            exit(1);
        }
        check(cuMemImportFromShareableHandle(&block->imported[i], (void *) (uintptr_t) fd,
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), "cuMemImportFromShareableHandle");
        close(fd);
        check(cuMemMap(block->base + i * chunk, chunk, 0, block->imported[i], 0), "cuMemMap");
    }
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = (int) device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(cuMemSetAccess(block->base, block->range, &access, 1), "cuMemSetAccess");
}

static void close_block(Block *block) {
    if (!block->expandable) {
        check(cuIpcCloseMemHandle(block->base), "cuIpcCloseMemHandle");
        return;
    }
    check(cuMemUnmap(block->base, block->range), "cuMemUnmap");
    for (size_t i = 0; i < block->chunks; i++) check(cuMemRelease(block->imported[i]), "cuMemRelease");
    check(cuMemAddressFree(block->base, block->range), "cuMemAddressFree");
    free(block->imported);
}

/* Gives one share's slot back once, never below 0, without touching the file's process count. The shares come file
 * by file: the last file's mapping is kept for the next (give_back(NULL, 0) unmaps it). */
static void give_back(const char *name, long slot) {
    static char mapped[512];
    static void *m = MAP_FAILED;
    size_t bytes = COUNTER_HEADER + 8 * (size_t) COUNTER_SLOTS;
    if (name == NULL || strcmp(name, mapped) != 0) {
        if (m != MAP_FAILED) munmap(m, bytes);
        m = MAP_FAILED;
        mapped[0] = '\0';
        if (name == NULL || name[0] != '/' || strchr(name + 1, '/') || strlen(name) > 400) return;
        char path[512];
        snprintf(path, sizeof path, "/dev/shm%s", name);
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) return;  /* the producer has gone */
        struct stat st;
        if (fstat(fd, &st) == 0 && (size_t) st.st_size == bytes) {
            m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        }
        close(fd);
        if (m == MAP_FAILED) return;
        strcpy(mapped, name);
    }
    if (slot < 0 || slot >= COUNTER_SLOTS) return;
    int64_t *at = (int64_t *) ((char *) m + COUNTER_HEADER) + slot;
    int64_t v = __atomic_load_n(at, __ATOMIC_SEQ_CST);
    while (v > 0 && !__atomic_compare_exchange_n(at, &v, v - 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
}

/* FNV-1a of a handle's hex: the block table's hash. */
static size_t hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char) *s) * 1099511628211ULL;
    return (size_t) h;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: interop-driver-reader SHARES.lines EXEC_EPOCH_US\n");
        return 2;
    }
    char *end = NULL;
    long long exec_us = strtoll(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || exec_us <= 0) die("EXEC_EPOCH_US is not a number of microseconds");

    size_t length;
    char *text = slurp(argv[1], &length);
    size_t capacity = 1024, count = 0;
    Share *shares = malloc(capacity * sizeof *shares);
    if (!shares) die("out of memory");
    char uuid[33] = {0};
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (*line == '\0') continue;
        char *f[7];
        int k = 0;
        for (char *p = line; k < 7; k++) {
            f[k] = p;
            char *space = strchr(p, ' ');
            if (k < 6) {
                if (!space) die("a share line has fewer than seven fields");
                *space = '\0';
                p = space + 1;
            } else if (space) {
                die("a share line has more than seven fields");
            }
        }
        if (count == capacity) {
            capacity *= 2;
            shares = realloc(shares, capacity * sizeof *shares);
            if (!shares) die("out of memory");
        }
        Share *s = &shares[count++];
        if (strlen(f[0]) != 32) die("a device UUID is not 32 hex digits");
        if (uuid[0] == '\0') memcpy(uuid, f[0], 32);
        else if (memcmp(uuid, f[0], 32) != 0) die("the shares are on more than one device");
        s->handle_hex = f[1];
        s->offset = strtoull(f[2], NULL, 10);
        s->bytes = strtoull(f[3], NULL, 10);
        s->has_event = strcmp(f[4], "-") != 0;
        if (s->has_event && unhex(f[4], s->event, sizeof s->event) != 64) die("an event handle is not 64 bytes");
        s->counter_file = f[5];
        s->slot = strcmp(f[6], "-") == 0 ? -1 : strtol(f[6], NULL, 10);
    }
    if (count == 0) die("the shares file holds no share");
    unsigned char want[16];
    if (unhex(uuid, want, sizeof want) != 16) die("a device UUID is not hex");

    /* The clock runs from here; the figures are taken when the last share is open. */
    check(cuInit(0), "cuInit");
    int devices = 0;
    check(cuDeviceGetCount(&devices), "cuDeviceGetCount");
    CUdevice device = -1;
    for (int i = 0; i < devices && device < 0; i++) {
        CUdevice d;
        CUuuid u;
        check(cuDeviceGet(&d, i), "cuDeviceGet");
        check(cuDeviceGetUuid(&u, d), "cuDeviceGetUuid");
        if (memcmp(u.bytes, want, 16) == 0) device = d;
    }
    if (device < 0) die("the shares' device is not visible here");
    CUcontext context;
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    CUstream stream;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

    /* The blocks opened, and an open-addressing table of them by handle (at most half full). */
    Block *blocks = calloc(count, sizeof *blocks);
    size_t slots = 2;
    while (slots < 2 * count) slots *= 2;
    Block **table = calloc(slots, sizeof *table);
    if (!blocks || !table) die("out of memory");
    size_t nblocks = 0;
    unsigned long long total = 0;
    for (size_t i = 0; i < count; i++) total += shares[i].bytes;
    unsigned long long checksum = 0;
    long long t0 = mono_ns();
    for (size_t i = 0; i < count; i++) {
        Share *s = &shares[i];
        size_t at = hash(s->handle_hex) & (slots - 1);
        while (table[at] != NULL && strcmp(table[at]->handle_hex, s->handle_hex) != 0) at = (at + 1) & (slots - 1);
        Block *b = table[at];
        if (b == NULL) {
            b = table[at] = &blocks[nblocks++];
            b->handle_hex = s->handle_hex;
            open_block(b, device);
        }
        checksum += b->base + s->offset;  /* the tensor's pointer, as a reader hands it on */
        if (s->has_event) {
            CUipcEventHandle handle;
            CUevent event;
            memcpy(handle.reserved, s->event, sizeof handle.reserved);
            check(cuIpcOpenEventHandle(&event, handle), "cuIpcOpenEventHandle");
            check(cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
            check(cuEventDestroy(event), "cuEventDestroy");
        }
    }
    long long t1 = mono_ns();
    long long now_us = epoch_us();

    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    printf("{\"impl\":\"c\",\"case\":\"scale\",\"alloc\":\"%s\",\"bytes\":%llu,\"tensors\":%zu,"
           "\"exec_to_open_us\":%lld,\"open_us\":%.3f,\"blocks\":%zu,\"pointer_sum\":%llu}\n",
           blocks[0].expandable ? "e" : "c", total, count, now_us - exec_us, (t1 - t0) / 1e3, nblocks, checksum);
    fflush(stdout);
    for (size_t j = nblocks; j-- > 0;) close_block(&blocks[j]);
    for (size_t i = 0; i < count; i++) give_back(shares[i].counter_file, shares[i].slot);
    give_back(NULL, 0);
    check(cuStreamDestroy(stream), "cuStreamDestroy");
    check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
    free(table);
    free(blocks);
    free(shares);
    free(text);
    return 0;
}
